// The new-game form, then the page's start (this file loads last).
"use strict";

// ---------- new game ----------
const COLOURS = ["#d33", "#2a6ef0", "#2b2", "#e9c531", "#a4e", "#f80", "#eee", "#222", "#1bb", "#b55"];
function seatRow(name, colour) {
  const row = h("div", {class: "seat-row"},
    h("input", {type: "color", value: colour, "aria-label": "colour"}),
    h("input", {type: "text", value: name, placeholder: "name", "aria-label": "player name", maxlength: "24"}),
    h("button", {type: "button", class: "quiet", "aria-label": "move up", onclick: () => { if (row.previousSibling) row.parentNode.insertBefore(row, row.previousSibling); refreshFirst(); }}, "\u2191"),
    h("button", {type: "button", class: "quiet", "aria-label": "remove", onclick: () => { row.remove(); refreshFirst(); }}, "\u00d7"));
  row.querySelector('input[type="text"]').addEventListener("input", refreshFirst);
  return row;
}
function seatNames() {
  return [...document.querySelectorAll("#seats .seat-row input[type=text]")].map((i) => i.value.trim()).filter(Boolean);
}
function refreshFirst() {
  const sel = $("first");
  const keep = sel.value;
  sel.replaceChildren(h("option", {value: "", text: "the first seat"}), ...seatNames().map((n) => h("option", {value: n, text: n})));
  sel.value = seatNames().includes(keep) ? keep : "";
}
$("add-player").addEventListener("click", () => {
  const n = $("seats").children.length;
  $("seats").append(seatRow("", COLOURS[n % COLOURS.length]));
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
  raise: {quantity_or_face: "quantity or face", quantity: "quantity"},
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

async function loadRules() {
  const data = await fetch("/api/rules", {credentials: "same-origin"}).then((r) => (r.ok ? r.json() : null)).catch(() => null);
  if (!data) return;
  page.rules = data;
  // The select shows the preset's name (a phone cuts a long line); its title goes below it.
  $("preset").replaceChildren(...Object.keys(data.presets).map((p) => h("option", {value: p, text: p})));
  $("preset").value = (data.defaults && data.defaults.rules) || "perudo";
  const names = (data.defaults && data.defaults.players && data.defaults.players.length) ? data.defaults.players : ["Ana", "Ben", "Caro", "Dan"];
  $("preset").addEventListener("change", renderOptions);
  if (!$("seats").children.length) names.forEach((n, i) => $("seats").append(seatRow(n, COLOURS[i % COLOURS.length])));
  refreshFirst();
  renderOptions();
}
function renderOptions() {
  const preset = page.rules.presets[$("preset").value] || {};
  const about = [preset.title, preset.seats ? preset.seats + " players" : ""].filter(Boolean).join(" \u00b7 ");
  $("preset-title").textContent = about;
  $("dice-each").value = preset.dice || 5;
  $("options").replaceChildren(...Object.entries(page.rules.options).filter(([name]) => name !== "dice").map(([name, choices]) => {
    const value = preset[name];
    const input = choices === "bool"
      ? h("input", {type: "checkbox", "data-option": name, checked: value === true})
      : h("select", {"data-option": name}, choices.map((c) => h("option", {value: String(c), selected: c === value, text: valueLabel(name, c)})));
    return h("label", {class: "option", title: name}, h("span", {text: optionLabel(name)}), input);
  }));
}

$("new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const names = seatNames();
  const colours = {};
  document.querySelectorAll("#seats .seat-row").forEach((row) => {
    const n = row.querySelector("input[type=text]").value.trim();
    if (n) colours[n] = row.querySelector("input[type=color]").value;
  });
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
  if ($("first").value) header.first = $("first").value;
  const data = await api("POST", "/api/game", header);
  if (data) { page.anotherGame = false; $("history").replaceChildren(); applyAnswer(data); loadGames(); window.scrollTo(0, 0); }
});

$("another-game").addEventListener("click", () => {
  if (!page.anotherGame && !confirm("Leave this game unfinished and set up a new one? It stays in the list of games.")) return;
  page.anotherGame = !page.anotherGame;
  if (page.state) render(page.state);
  if (page.anotherGame) $("setup").scrollIntoView();
});

// ---------- start ----------
fetch("/api/state", {credentials: "same-origin"}).then((r) => r.json()).then((s) => { render(s); loadBids(); }).catch(() => {});
loadHistory();
loadGames();
loadRules();
connect();
setControl(page.control);
if (page.sim) setInterval(pollPins, 500);
