// The new-game form, then the page's start (this file loads last).
"use strict";

// ---------- new game ----------
// Told apart on a light card and a dark one (a colour input takes #rrggbb only).
const COLOURS = ["#dd3333", "#2a6ef0", "#22aa22", "#e9c531", "#aa44ee", "#ff8800", "#11aaaa", "#e0448a", "#8d6e4a", "#7a8a99"];
let seatsMade = 0;  // each row's own number: "First" follows the row, whatever its name
function seatRow(name, colour, tableSeat) {
  const row = h("div", {class: "seat-row", "data-seat": String(++seatsMade), "data-table-seat": tableSeat ? String(tableSeat) : ""},
    h("input", {type: "color", class: "seat-colour", value: colour}),
    h("input", {type: "text", class: "seat-name", value: name, placeholder: "name", maxlength: "24", enterkeyhint: "next"}),
    h("span", {class: "seat-buttons"},
      h("button", {type: "button", class: "quiet move-up", onclick: () => {
        if (row.previousSibling) row.parentNode.insertBefore(row, row.previousSibling);
        refreshFirst();
        row.querySelector(".move-up").focus();  // moved, the focus goes with it
      }}, "\u2191"),
      h("button", {type: "button", class: "quiet move-down", onclick: () => {
        if (row.nextSibling) row.parentNode.insertBefore(row.nextSibling, row);
        refreshFirst();
        row.querySelector(".move-down").focus();
      }}, "\u2193"),
      h("button", {type: "button", class: "quiet remove", onclick: () => {
        const next = row.nextSibling || row.previousSibling;
        row.remove();
        refreshFirst();
        sayNameLimit();
        (next ? next.querySelector(".remove") : $("add-player")).focus();
      }}, "\u00d7")));
  const text = row.querySelector('input[type="text"]');
  text.addEventListener("input", () => { refreshFirst(); sayNameLimit(); });
  for (const input of row.querySelectorAll("input")) input.addEventListener("input", () => input.removeAttribute("aria-invalid"));
  // Enter (a phone keyboard's "next") goes to the next name, never starts the game.
  text.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    const next = row.nextSibling ? row.nextSibling.querySelector('input[type="text"]') : $("add-player");
    next.focus();
  });
  return row;
}
// Each row's controls named by its seat and player, as a screen reader says them ("seat 2
// name", "remove Ben"): every row's were named alike ("player name", "remove").
function nameRows() {
  document.querySelectorAll("#seats .seat-row").forEach((row, k) => {
    const who = cleanName(row.querySelector(".seat-name").value) || "seat " + (k + 1);
    const named = {".seat-name": "seat " + (k + 1) + " name", ".seat-colour": who + "'s colour",
      ".move-up": "move " + who + " up", ".move-down": "move " + who + " down", ".remove": "remove " + who};
    for (const [part, label] of Object.entries(named)) row.querySelector(part).setAttribute("aria-label", label);
  });
}
// A name typed or pasted up to the field's limit is said to be cut there (before, silently).
function sayNameLimit() {
  $("name-hint").hidden = ![...document.querySelectorAll("#seats input[type=text]")].some((i) => i.value.length >= i.maxLength);
}
// A name as the table takes it: no spaces at its ends, one space between words.
const cleanName = (text) => text.trim().replace(/\s+/g, " ");
function seatRows() {
  return [...document.querySelectorAll("#seats .seat-row")].map((row) => ({
    seat: row.dataset.seat, name: cleanName(row.querySelector("input[type=text]").value),
    colour: row.querySelector("input[type=color]").value, tableSeat: Number(row.dataset.tableSeat) || 0,
  })).filter((r) => r.name);
}
// Each row's seat at the table, its chair (the panel's seat button, the camera's zone). The
// chairs of the players the form was filled with stay, taken in the rows' order (a player
// moved up changes chairs with the one above); a row added takes the chair after the row
// above it, if free, else every row is seated in order, 1, 2, 3... Before (session 93's
// audit), after a player left, everyone after them moved a seat down: Caro's button then
// named Dan; and a player moved up was put past the table's last seat.
function tableSeats(rows) {
  const chairs = rows.map((r) => r.tableSeat).filter(Boolean).sort((a, b) => a - b);
  const seats = rows.map((r) => (r.tableSeat ? chairs.shift() : 0));
  for (let k = 0; k < seats.length; k++) {
    if (seats[k]) continue;
    seats[k] = (k ? seats[k - 1] : 0) + 1;
    const below = seats.slice(k + 1).find(Boolean);
    if (below !== undefined && seats[k] >= below) return rows.map((_, i) => i + 1);
  }
  return seats;
}
// A game refused for one player's name or colour (the table's answer names which): that
// seat's field is marked and focused, its mark gone once it is changed (before, only the
// notice said which). Two seats of one name: the second.
function markRefused(rows) {
  const about = page.refusal || {};
  const part = {name: ".seat-name", colour: ".seat-colour"}[about.field];
  const row = [...rows].reverse().find((r) => r.name === about.player);
  if (!part || !row) return;
  const input = document.querySelector('#seats .seat-row[data-seat="' + row.seat + '"] ' + part);
  input.setAttribute("aria-invalid", "true");
  input.focus();
}
function refreshFirst() {
  nameRows();
  const sel = $("first");
  const keep = sel.value;
  const rows = seatRows();
  sel.replaceChildren(h("option", {value: "", text: "the first seat"}), ...rows.map((r) => h("option", {value: r.seat, text: r.name})));
  sel.value = rows.some((r) => r.seat === keep) ? keep : "";
}
// A colour no seat has: the ten above, then (a jinto table seats up to 20) the colour that
// looks farthest from every seat's, of hues 5 degrees apart in three lightnesses.
function freeColour() {
  const taken = [...document.querySelectorAll("#seats input[type=color]")].map((i) => i.value.toLowerCase());
  const free = COLOURS.find((c) => !taken.includes(c));
  if (free) return free;
  let best = null, bestGap = -1;
  for (let hue = 0; hue < 360; hue += 5) {
    for (const light of [0.35, 0.5, 0.65]) {
      const colour = hslHex(hue, 0.7, light);
      const gap = Math.min(...taken.map((t) => colourGap(colour, t)));
      if (gap > bestGap) { best = colour; bestGap = gap; }
    }
  }
  return best;
}
// How far apart two colours look: "redmean", an RGB distance weighted as the eye sees.
function colourGap(a, b) {
  const [r1, g1, b1] = rgbOf(a) || [0, 0, 0], [r2, g2, b2] = rgbOf(b) || [0, 0, 0];
  const mean = (r1 + r2) / 2;
  return Math.sqrt((2 + mean / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2 + (2 + (255 - mean) / 256) * (b1 - b2) ** 2);
}
function hslHex(hue, sat, light) {
  const a = sat * Math.min(light, 1 - light);
  const part = (n) => {
    const k = (n + hue / 30) % 12;
    const v = light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255).toString(16).padStart(2, "0");
  };
  return "#" + part(0) + part(8) + part(4);
}
$("add-player").addEventListener("click", () => {
  $("seats").append(seatRow("", freeColour()));
  refreshFirst();
});

// The options of RULES.md's "Option names" table in the players' words (GET /api/rules gives
// only the names and values); a name or value not here shows as it is, underscores as spaces.
const OPTION_LABELS = {
  wild_aces: "Aces are wild",
  raise: "A raise must increase",
  to_aces: "Least aces over a bid of N",
  open_on_aces: "Opening on aces",
  exact_call: "Exact call",
  pass: "Pass allowed",
  starter: "Next round opens",
  palifico: "Palifico round",
  palifico_face_change: "Face change in palifico",
  palifico_choice: "Open or closed palifico",
  loss: "Dice lost",
  cruzado: "Dudo cruzado",
  direction: "Direction of play",
  lost_dice_visible: "Show the dice in play",
};
const VALUE_LABELS = {
  raise: {quantity_or_face: "quantity or face", quantity: "quantity only"},
  to_aces: {ceil_half: "half, rounded up", half_plus_one: "half down + 1"},
  open_on_aces: {never: "never", one_die: "with one die"},
  exact_call: {none: "none", spot_on: "spot on"},
  starter: {loser: "the loser", winner: "the winner"},
  palifico: {none: "never", once: "once each", every_time: "every time"},
  palifico_face_change: {nobody: "nobody", one_die: "one-die players"},
  loss: {one: "one", difference: "the difference"},
  direction: {alternating: "alternating"},
};
const optionLabel = (name) => OPTION_LABELS[name] || name.replaceAll("_", " ");
const valueLabel = (name, value) => ((VALUE_LABELS[name] || {})[value] || String(value).replaceAll("_", " "));

// What the form starts from: the game on the table (the next game is most often the same
// table again: its rules, options, players and colours), else the config's [table].
function formStart(defaults) {
  const s = page.state;
  if (s && s.players && s.players.length) {
    // Not the players who left (as the panel's play-again; before, session 92's audit, the
    // form seated them again). All of them where too few stayed to play.
    const stayed = s.players.filter((p) => !p.left);
    const seated = stayed.length >= 2 ? stayed : s.players;
    return {rules: s.rules, options: s.options || {}, colours: s.colours || {}, players: seated.map((p) => p.name), seats: seated.map((p) => p.seat)};
  }
  const players = defaults.players && defaults.players.length ? defaults.players : ["Ana", "Ben", "Caro", "Dan"];
  return {rules: defaults.rules || "perudo", options: defaults.options || {}, colours: {}, players, seats: []};
}
async function loadRules(stateShown) {
  const data = await fetch("/api/rules", {credentials: "same-origin"}).then((r) => (r.ok ? r.json() : null)).catch(() => null);
  if (!data) return;
  await stateShown;
  page.rules = data;
  // The select shows the preset's name (a phone cuts a long line); its title goes below it.
  $("preset").replaceChildren(...Object.keys(data.presets).map((p) => h("option", {value: p, text: p})));
  $("preset").addEventListener("change", () => renderOptions({}));
  fillForm();
}
// The form as the game on the table has it (formStart), filled once for each game: the next
// game another phone started is the one to start from; a form being filled in stays as it is.
function fillForm() {
  if (!page.rules) return;
  const start = formStart(page.rules.defaults || {});
  $("preset").value = page.rules.presets[start.rules] ? start.rules : "perudo";
  $("seats").replaceChildren();
  start.players.forEach((n, k) => $("seats").append(seatRow(n, start.colours[n] || freeColour(), start.seats[k])));
  sayNameLimit();
  refreshFirst();
  renderOptions(start.options);
  page.formFor = page.state ? (page.state.game_id ?? null) : null;
}
// The options of the chosen preset, with ``chosen`` (name: value) over them.
function renderOptions(chosen) {
  const preset = {...(page.rules.presets[$("preset").value] || {}), ...chosen};
  // A jinto table's first seat opens ("player 1"); elsewhere a roll-off's winner does.
  const playerOne = preset.first_starter === "player 1";
  const about = [preset.title, preset.seats ? preset.seats + " players" : "", playerOne ? "the first seat opens" : ""].filter(Boolean).join(" \u00b7 ");
  $("preset-title").textContent = about;
  $("first").closest("label").hidden = playerOne;
  $("dice-each").value = preset.dice || 5;
  $("options").replaceChildren(...Object.entries(page.rules.options).filter(([name]) => name !== "dice").map(([name, choices]) => {
    const value = preset[name];
    const input = choices === "bool"
      ? h("input", {type: "checkbox", "data-option": name, checked: value === true})
      : h("select", {"data-option": name}, choices.map((c) => h("option", {value: String(c), selected: c === value, text: valueLabel(name, c)})));
    return h("label", {class: "option", title: name}, h("span", {text: optionLabel(name)}), input);
  }));
}

$("new-game").addEventListener("submit", (ev) => {
  ev.preventDefault();
  sending(startGame);
});
async function startGame() {
  // A seat left without a name is asked about, not dropped: the players after it would sit
  // a seat too far up, for the panel's seat buttons and the camera's zones.
  const unnamed = [...document.querySelectorAll("#seats .seat-name")].findIndex((i) => !cleanName(i.value));
  if (unnamed >= 0) {
    const input = document.querySelectorAll("#seats .seat-name")[unnamed];
    input.setAttribute("aria-invalid", "true");
    input.focus();
    notice("Seat " + (unnamed + 1) + " has no name: type one, or remove the seat with \u00d7", "error");
    return;
  }
  const rows = seatRows();
  const names = rows.map((r) => r.name);
  const colours = Object.fromEntries(rows.map((r) => [r.name, r.colour]));
  const preset = page.rules.presets[$("preset").value] || {};
  const options = {};
  const dice = Number($("dice-each").value);
  if (dice && dice !== preset.dice) options.dice = dice;
  document.querySelectorAll("#options [data-option]").forEach((el) => {
    const name = el.dataset.option;
    const value = el.type === "checkbox" ? el.checked : el.value;
    if (value !== preset[name]) options[name] = value;
  });
  const header = {game: "dudo-record/1", rules: $("preset").value, options, players: names, colours};
  const seats = tableSeats(rows);
  if (seats.some((n, k) => n !== k + 1)) header.seats = seats;
  const first = rows.find((r) => r.seat === $("first").value);
  if (first && !$("first").closest("label").hidden) header.first = first.name;
  // The game this phone shows (0: none): a form sent twice, or from two phones, starts one.
  const s = page.state || {};
  const seen = {"X-Table-Seen": (typeof s.game_id === "number" ? s.game_id : 0) + "/" + (typeof s.moves === "number" ? s.moves : 0)};
  const data = await api("POST", "/api/game", header, seen);
  if (!data) {
    markRefused(rows);
    return;
  }
  page.anotherGame = false;
  $("notice").hidden = true;  // a refusal of the form as it was is over
  $("first").value = "";  // the next game's opener is for its own roll-off
  $("history").replaceChildren();
  applyAnswer(data);
  loadGames();
  window.scrollTo(0, 0);
}

$("another-game").addEventListener("click", () => {
  if (!page.anotherGame && !confirm("Leave this game unfinished and set up a new one? It stays in the list of games.")) return;
  page.anotherGame = !page.anotherGame;
  page.anotherFor = page.state ? page.state.game_id : null;
  if (page.state) render(page.state);
  if (page.anotherGame) $("setup").scrollIntoView();
});

// ---------- start ----------
const stateShown = fetch("/api/state", {credentials: "same-origin"}).then((r) => r.json()).then((s) => { render(s); loadBids(); }).catch(() => {});
loadHistory();
// The list of games once the state is shown: the game under way at a table that hides the
// dice counts lists no record for a phone without the PIN, which the state tells (asked
// for together, the list came first on a busy host and offered a link to a refusal).
stateShown.then(() => loadGames());
loadRules(stateShown);
connect();
setControl(page.control);
if (page.sim) setInterval(pollPins, 500);
