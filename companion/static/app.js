// The phone page: renders the table's public state, live over Server-Sent Events, and
// (with the table PIN) sends bids, calls, readings and new games. It shows only what the
// state gives: it never knows a hidden die.
"use strict";

const $ = (id) => document.getElementById(id);
const page = {
  state: null,
  control: document.body.dataset.control === "yes",
  sim: document.body.dataset.sim === "yes",
  csrf: document.querySelector('meta[name="csrf-token"]').content,
  bids: [],          // legal next bids from /api/bids: [{quantity, face, text, chance}]
  choice: null,      // the bid picked in the picker
  choiceFor: null,   // the raise it was picked for: game, round, who raises, which bid
  formFor: undefined, // the game the new-game form was filled from (setup.js: fillForm)
  simSeat: null,     // seat pressed on the simulated panel before a call
  rules: null,       // presets and options from /api/rules
  lastPalifico: null,
  anotherGame: false, // the new-game form asked for while a game is on (set up wrong)...
  anotherFor: null,   // ...that game's game_id: once another phone starts a game, it closes
  readingKey: null,  // which picture the picks below belong to
  manualFill: undefined,  // what the by-hand counts were filled from (a picture and its corrections)
  manualTyped: undefined, // the picture the players typed counts on (null: with none)
  picks: {},         // faces the players set on a pending reading, by die index
  confirming: null,  // the picture this phone confirmed (its picks went with it)
  refocus: null,     // the button that had the keyboard's focus when the buttons were held
  capturing: false,  // a picture is being taken and read
  lastPicture: null, // the reveal whose picture this phone shows ({game_id, round}) while at it
  announced: [],     // keys of the announcement batches shown, so each shows once
  historyLines: 0,   // the lines of the game's history so far (the page shows the newest)
  historyHas: null,  // the game and moves the history loaded from the table holds ({game_id, moves})
  awayFrom: null,    // the game and history lines the page had when its feed went down
  floor: -Infinity,  // the newest state version shown since the live feed (re)connected
  drawn: null,       // the state last drawn whole, but for its version and display (drawnPart)
  textFitted: null,  // the text size (px) the page was last drawn at
  run: null,         // the table's run that version counts in (a restart begins a new one)
  offline: false,    // the live feed is down: nothing is sent until it is back
  sending: false,    // an action of this phone is on its way: nothing more is sent meanwhile
  refusal: null,     // the body of the table's last refusal of this phone's request, else null
  settleUntil: 0,    // nor before this moment (performance.now()), just after its answer
  bidsAsked: 0,      // /api/bids asked so often: only the last ask's answer is shown
  // /api/history asked so often, and the asks answered (none in flight when equal): only the
  // last ask's answer is shown (the history of the game before, asked as the page opened,
  // took the place of the new game's on a busy host)
  historyAsked: 0,
  historyAnswered: 0,
  bidsFor: null,     // the game and moves ("3/12") the legal bids shown were given for
  bidsWanted: null,  // the game and moves the last ask for the legal bids was made at
  bidsLost: 0,       // the asks for the legal bids that failed in a row (asked again later)
  heard: 0,          // when the live feed last said anything (performance.now())
  feed: null,        // the live feed (an EventSource)
  aliveS: Number(document.body.dataset.aliveS) || 15,  // the feed speaks at least this often
};
// After this phone's action is answered, its buttons wait this long: the second tap of a
// double tap would otherwise bid for the next player, or take back a second action (the
// panel waits as long after a phone's action, for the same slip).
const SETTLE_MS = 500;
// The root text size (px) from which the turn line takes two lines: 150% of the usual 16.
const LARGE_TEXT_PX = 24;
const WAITING_FOR_THE_DICE = "Waiting for the dice: whoever has the PIN types them in.";
// What a player can do about a table out of reach (not the browser's words for it).
const UNREACHABLE = "The table cannot be reached: check the Wi-Fi; the page reconnects by itself.";
const NO_ANSWER = "No answer from the table yet: it may still take this; look at the game before tapping again.";
// How long an action's answer is waited for (the table answers in well under a second).
const ANSWER_WAIT_MS = 10000;

// ---------- small helpers ----------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c);
  return el;
}

const PIPS = {1: [5], 2: [3, 7], 3: [3, 5, 7], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9], 6: [1, 3, 4, 6, 7, 9]};
function die(face, extra) {
  if (!PIPS[face]) return h("span", {class: "die-text", text: String(face)});
  const el = h("span", {class: "die face" + face + (extra ? " " + extra : ""), "aria-label": String(face), role: "img"});
  for (let i = 1; i <= 9; i++) el.append(h("i", {class: PIPS[face].includes(i) ? "pip" : ""}));
  return el;
}
// Browsers refuse (and log an error) to vibrate before the user has touched the page.
let touched = false;
for (const type of ["pointerdown", "keydown"]) window.addEventListener(type, () => { touched = true; }, {capture: true, once: true});
function buzz(pattern) {
  if (!navigator.vibrate) return;
  const active = navigator.userActivation ? navigator.userActivation.hasBeenActive : touched;
  if (active) navigator.vibrate(pattern);
}

// A chance as a whole percentage; never "100%" or "0%" for what is only nearly sure: ">99%"
// and "<1%" (a bid of every die on the table read "1%" likely true).
const pct = (p) => (p === null || p === undefined ? "" : p > 0 && p < 0.005 ? "<1%"
  : p < 1 && p >= 0.995 ? ">99%" : Math.round(p * 100) + "%");

async function api(method, path, body, extra) {
  const headers = {"X-CSRF-Token": page.csrf, ...(extra || {})};
  const init = {method, headers, credentials: "same-origin"};
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  // An answer that never comes (the Wi-Fi gone mid-request) must not hold the buttons for
  // as long as the phone takes to give up: after a while it is a table out of reach.
  const abandon = new AbortController();
  const timer = setTimeout(() => abandon.abort(), ANSWER_WAIT_MS);
  init.signal = abandon.signal;
  let res;
  page.refusal = null;
  try {
    res = await fetch(path, init);
  } catch (e) {
    // Given up on: the table may yet have taken it (a slow table), so look before again.
    notice(abandon.signal.aborted ? NO_ANSWER : UNREACHABLE, "error");
    return null;
  } finally {
    clearTimeout(timer);
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    page.refusal = data;
    if (res.status === 401 && page.control) {
      setControl(false);
      notice(CONTROL_ENDED, "error");
    } else {
      notice(data.error || res.status + " " + res.statusText, "error");
    }
    return null;
  }
  return data;
}

// A table started again with another PIN ends every phone's control (so does a PIN changed
// in its config): said in a player's words, not as the API's refusal.
const CONTROL_ENDED = "This phone's control has ended (a new PIN, a restart, or signed out elsewhere): tap \u201cEnter PIN\u201d to take it again.";
async function recheckControl() {
  try {
    const res = await fetch("/api/session", {credentials: "same-origin"});
    const data = res.ok ? await res.json() : null;
    if (!data) return;
    if (data.csrf) page.csrf = data.csrf;
    if (page.control && !data.control) { setControl(false); notice(CONTROL_ENDED, "error"); }
  } catch (e) { /* out of reach again: the feed says so */ }
}

let noticeTimer = null;
// A toast lies over the controls: the player's next touch clears an announcement's (the
// history keeps every one), so the button under it can be seen before it is tapped. A
// refusal's, kept nowhere else, stays for the time to read it (REFUSAL_READ_MS), then goes at
// the next touch too: it lies over the standing bid it often asks to look at again. A tap on
// the toast itself clears it, a refusal's too, and presses nothing under it (it was read, or
// is in the way): the toast stays until its own click, or a finger's tap would land on the
// button it hid.
const REFUSAL_READ_MS = 1500;
let noticeShownAt = 0;
function clearNotice() {
  clearTimeout(noticeTimer);
  $("notice").hidden = true;
}
document.addEventListener("pointerdown", (event) => {
  if (event.target === $("notice")) return;
  if ($("notice").classList.contains("error") && performance.now() - noticeShownAt < REFUSAL_READ_MS) return;
  clearNotice();
}, {capture: true});
$("notice").addEventListener("click", clearNotice);
// A finger on the toast (to scroll a long one) keeps it until its tap.
$("notice").addEventListener("pointerdown", () => clearTimeout(noticeTimer));
function markMore() {
  const el = $("notice");
  el.classList.toggle("more", el.scrollTop + el.clientHeight < el.scrollHeight - 2);
}
$("notice").addEventListener("scroll", markMore);
function notice(text, kind, ms) {
  const el = $("notice");
  el.textContent = text;
  // Said by a screen reader from a region always on the page (the toast, shown with its
  // words, might not be), once: the toast itself is no live region.
  $("said").textContent = text;
  el.className = "notice " + (kind || "");
  el.hidden = false;
  el.scrollTop = 0;
  markMore();
  noticeShownAt = performance.now();
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { el.hidden = true; }, ms || (kind === "error" ? 6000 : 4000));
}

// A live region is written only when what it says changes: a screen reader says every write,
// and a move redraws the page two or three times (the feed's event, the answer, the hold's end).
// Hidden, it forgets what it said: shown again, it is said again.
function sayOnce(el, key, write) {
  if (el.dataset.says === key) return;
  el.dataset.says = key;
  write();
}
function saidNothing(el) {
  el.hidden = true;
  delete el.dataset.says;
}

// Rebuild a box's contents, keeping the keyboard's focus on the like element (the same value
// of `attr`): a face chosen or a die corrected with the keyboard does not send focus away.
function rebuildKeepingFocus(box, attr, children) {
  const focused = box.contains(document.activeElement) ? document.activeElement.getAttribute(attr) : null;
  box.replaceChildren(...children);
  if (focused === null) return;
  const again = box.querySelector("[" + attr + '="' + CSS.escape(focused) + '"]');
  if (again) again.focus();
}

// ---------- control (PIN) ----------
function setControl(on) {
  page.control = on;
  document.body.dataset.control = on ? "yes" : "no";
  $("lock").textContent = on ? "Control on" : "Enter PIN";
  $("lock").classList.toggle("on", on);
  if (page.state) render(page.state);
  if (page.state && page.state.dice_in_play === null) loadGames();  // its record, the PIN's
}

$("lock").addEventListener("click", async () => {
  if (page.control) {
    // A tap by mistake must not cost the PIN: giving up control is asked first.
    if (!window.confirm("Give up control on this phone? The table PIN is needed to take it back.")) return;
    const data = await api("POST", "/api/logout", {});
    if (data) { page.csrf = data.csrf; setControl(false); }
    return;
  }
  $("pin-error").textContent = "";
  $("pin").value = "";
  $("pin-dialog").showModal();
});
$("pin-cancel").addEventListener("click", () => $("pin-dialog").close());
$("pin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  let res;
  try {
    res = await fetch("/api/login", {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({pin: $("pin").value}),
    });
  } catch (e) {
    $("pin-error").textContent = UNREACHABLE;
    return;
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    $("pin-error").textContent = data.error || "refused";
    // The wrong PIN goes: the next one is typed into an empty field, not after it.
    $("pin").value = "";
    $("pin").focus();
    return;
  }
  page.csrf = data.csrf;
  $("pin-dialog").close();
  if ($("notice").textContent === CONTROL_ENDED) $("notice").hidden = true;  // taken again
  setControl(true);
  loadBids();
  // No game on: the PIN was given to start one, and the form lies screens below.
  const noGame = !page.state || !players(page.state).length;
  if (noGame && !$("setup").hidden) $("setup").scrollIntoView({block: "start"});
});

// ---------- rendering ----------
function players(state) { return state.players || []; }
function activePlayers(state) { return players(state).filter((p) => !p.out); }
// Who may make each call now, from the server (`can_call`): {dudo: [...], calza: [...], pass: [...]}.
function mayCall(state, kind, name) {
  const can = state.can_call;
  return !!(can && typeof can === "object" && Array.isArray(can[kind]) && can[kind].includes(name));
}
// The player whose pass stands (the last bid or pass of the round was a pass), else null.
function standingPass(state) {
  const moves = (state.bids || []).filter((b) => b.action === "bid" || b.action === "pass");
  const last = moves[moves.length - 1];
  return last && last.action === "pass" ? last.player : null;
}
// A palifico round whose player may still declare it open or closed (before its first bid;
// a pass does not end the chance).
function palificoChoicePending(state) {
  return !!(state.palifico && (state.options || {}).palifico_choice && state.phase === "bidding"
    && !(state.bids || []).some((b) => b.action === "palifico" || b.action === "bid"));
}
// The cups are up and the camera is taking and reading a picture, none read yet.
function cameraLooking(state) {
  return state.phase === "reveal" && !!state.capturing && !state.reading;
}
// The camera has not looked yet: the moment to take a mis-pressed call back.
function cupsUpBeforeTheCamera(state) {
  return cameraLooking(state) && !lookingAgain(state);
}
// The camera looks again at dice it has shown (Take again, or a player left while the cups
// were up): this phone showed this reveal's picture, which stays, dimmed, until the new one
// is read (the card kept its place, and the page below it with it).
function lookingAgain(state) {
  const last = page.lastPicture;
  return cameraLooking(state) && !!last && last.game_id === state.game_id && last.round === state.round;
}
function colourOf(state, name) {
  const c = state.colours || (state.header && state.header.colours) || {};
  return c[name] || null;
}

// Whether a state is to be shown: the first /api/state can answer after the live feed has
// brought a newer state, and an older one must not take the page back (a restarted table
// counts again from 0, in a new run). What the panel says shows as it comes.
function current(state) {
  if (typeof state.version === "number") {
    if (state.run !== page.run) { page.run = state.run; page.floor = -Infinity; }
    if (state.version < page.floor) return false;
    page.floor = state.version;
  }
  const panelSays = (state.display || {}).panel;
  if (panelSays && panelSays !== page.panelSaid) notice(panelSays, "error");
  page.panelSaid = panelSays;
  return true;
}

// A state but for its version and what the panel displays, as text.
function drawnPart(state) {
  const {version, display, ...rest} = state;
  return JSON.stringify(rest);
}

// A state the table sent (the live feed, an action's answer). One that moves only what the
// panel displays (each click of its dial, the dial set anew after each move) redraws the
// dial's line alone: a slow phone took a whole redraw of the page at each.
function renderFromTable(state) {
  if (!page.state || drawnPart(state) !== page.drawn) {
    render(state);
  } else if (current(state)) {
    const place = placeLeft();  // the dial's line may take a line more, or one fewer
    page.state = state;
    renderDial(state);
    renderSim(state);
    keepPlace(place);
    placeKept();
  }
}

function render(state) {
  if (!current(state)) return;
  page.drawn = drawnPart(state);
  // Another phone started a new game: this one's history is the new game's.
  // Or the history on the page is another game's (asked for before this game began, and
  // answered after): it is asked for again, not added to.
  const newGame = page.state && state.game_id !== page.state.game_id;
  const anotherGames = page.historyHas && page.historyHas.game_id !== state.game_id
    && page.historyAsked === page.historyAnswered;
  if (newGame || anotherGames) {
    $("history").replaceChildren();
    page.historyLines = 0;
    numberHistory();
    loadHistory();
    if (newGame) loadGames();
  }
  // The game moved (another phone, the panel, this phone's answer): the buttons are held a
  // moment, so that a tap meant for what was shown is not taken for the next player's.
  if (page.state && (state.game_id !== page.state.game_id || state.moves !== page.state.moves)) {
    page.settleUntil = Math.max(page.settleUntil, performance.now() + SETTLE_MS);
    setTimeout(release, SETTLE_MS + 20);
  }
  page.state = state;
  const place = placeLeft();
  $("round").textContent = state.round ? "round " + state.round : "";
  renderFaults(state);
  renderBanners(state);
  renderBid(state);
  renderPlayers(state);
  renderRoundBids(state);
  renderReveal(state);
  renderControls(state);
  renderSim(state);
  const noGameOn = state.phase === "over" || !state.players || !state.players.length;
  // The game the form was opened to leave was left by another phone: it is over for this one.
  if (page.anotherGame && state.game_id !== page.anotherFor) page.anotherGame = false;
  const setup = page.control && (noGameOn || page.anotherGame);
  if (setup && (page.state.game_id ?? null) !== page.formFor) fillForm();
  // The form this phone was filling closed as another phone started a game: the new game's
  // bid and buttons are at the top, where the form's phone is taken (it was left at the list
  // of players, the buttons out of view).
  const formClosed = newGame && !setup && !$("setup").hidden;
  $("setup").hidden = !setup;
  // A game set up wrong (players, rules, dice) is left unfinished for a new one, on purpose.
  $("another-game").hidden = !page.control || noGameOn;
  $("another-game").textContent = page.anotherGame ? "Keep playing this game" : "Start another game instead\u2026";
  // With no game there is no record to download (the link would lead to an error).
  $("record-link").hidden = !state.game_id;
  // Nor, at a table that hides how many dice remain, for a phone without the PIN while the
  // game is on (the record would count them; the table refuses it).
  if (state.dice_in_play === null && state.phase !== "over" && !page.control) $("record-link").hidden = true;
  renderHeld();
  if (formClosed) window.scrollTo(0, 0); else keepPlace(place);
  placeKept();
}

// Where the reader left the page: as the last redraw kept it, unless they have scrolled
// since. (Measured now, a picture whose size came in since, its load still to come, would
// be taken for where they were: the players stayed pushed down by it.)
function placeLeft() {
  return page.place && window.scrollY === page.placeAt && !page.place.card.hidden
    ? page.place : placeInView();
}
// The place a redraw kept. The picture comes after: its place is kept then too, unless the
// reader has scrolled since.
function placeKept() {
  page.place = placeInView();
  page.placeAt = window.scrollY;
}

// What a phone shows stays where it is as parts above it come and go (the reveal card at a
// call, its picture at the next round's first bid): the first card that starts in view keeps
// its place on the screen. At the top of the page nothing moves: the top is what is read.
function placeInView() {
  if (window.scrollY <= 0) return null;
  const below = document.querySelector("header.top").getBoundingClientRect().bottom;
  const cards = [...document.querySelectorAll("main > section.card")].filter((c) => !c.hidden);
  const card = cards.find((c) => c.getBoundingClientRect().top >= below)
    || cards.find((c) => c.getBoundingClientRect().bottom > below);
  return card ? {card, top: card.getBoundingClientRect().top} : null;
}
$("reveal-img").addEventListener("load", () => {
  $("reveal-img").classList.remove("again");  // the new picture is in: no longer the one before
  if (window.scrollY !== page.placeAt) return;  // the reader scrolled since: left as they put it
  keepPlace(page.place);
  page.placeAt = window.scrollY;  // the place kept, as a redraw keeps it (not a scroll of theirs)
});
$("reveal-img").addEventListener("error", () => $("reveal-img").classList.remove("again"));
function keepPlace(place) {
  if (!place || place.card.hidden) return;
  const moved = place.card.getBoundingClientRect().top - place.top;
  if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
}

// ---------- the feed is down, or an action is on its way ----------
// Every control that sends something to the table: held while the live feed is down (what a
// phone shows then may be out of date), and while this phone's last action is on its way or
// just answered; let go after. A held button is marked aria-disabled, not disabled, so that
// it keeps the keyboard's focus (a disabled one loses it, and a screen reader follows it to
// the page's top); its taps and key presses are stopped before they reach it.
const SENDERS = "#controls button, #reading-actions button, #manual button[type=submit], #cups button[type=submit], #new-game button[type=submit], #sim button, #leave-row button";
function held() { return page.offline || page.sending || performance.now() < page.settleUntil; }
function renderHeld() {
  if ($("offline").hidden === page.offline) $("offline").hidden = !page.offline;
  if (page.offline) $("offline-text").textContent = UNREACHABLE;
  if (!held()) return;
  // The button with the focus may go with what it did (DUDO as the cups come up).
  const focused = document.activeElement;
  if (focused && focused !== document.body && focused.matches(SENDERS)) page.refocus = focused;
  document.querySelectorAll(SENDERS).forEach((b) => {
    if (!b.dataset.held) { b.dataset.held = "yes"; b.setAttribute("aria-disabled", "true"); }
  });
}
document.addEventListener("click", (event) => {
  if (!event.target.closest || !event.target.closest("[data-held]")) return;
  event.preventDefault();  // a form's submit button sends nothing either
  event.stopImmediatePropagation();
}, true);
function release() {
  if (held()) return;
  document.querySelectorAll("[data-held]").forEach((b) => { delete b.dataset.held; b.removeAttribute("aria-disabled"); });
  // Nothing else to draw: what the table sent meanwhile is drawn (each phone drew every move
  // twice, the second time half a second later, to let its buttons go).
  renderHeld();
  const back = page.refocus;
  page.refocus = null;
  const lost = !document.activeElement || document.activeElement === document.body;
  if (!lost || !back) return;
  // Gone with what it did (DUDO as the cups come up, Confirm once the reading counted): the
  // focus goes to the next control of its card, else to Undo, not to the page's top.
  const usable = (b) => b && b.isConnected && !b.disabled && b.getClientRects().length > 0;
  const card = back.closest("section");
  const next = [back, ...(card ? card.querySelectorAll("button") : []), $("undo")].find(usable);
  if (next) next.focus({preventScroll: true});
}
// A phone turned on its side, or its text made larger: what is fitted to the page's width and
// text (a long name on the turn's line) is fitted again, once it has turned. What the reader
// sees then stays in view (not where it was before the turn).
let turned = null;
function refit() {
  clearTimeout(turned);
  turned = setTimeout(() => { if (page.state) { page.place = null; render(page.state); } }, 150);
}
// Not as the browser's bar comes and goes (a height alone): a whole redraw for nothing.
let widthFitted = window.innerWidth;
window.addEventListener("resize", () => { if (window.innerWidth !== widthFitted) { widthFitted = window.innerWidth; refit(); } });
// #em is a rem wide: its width is the page's text size, against the one it was drawn at.
if (window.ResizeObserver) {
  new ResizeObserver((seen) => {
    const now = seen[seen.length - 1].contentRect.width;
    if (page.textFitted !== null && now !== page.textFitted) refit();
  }).observe($("em"));
}
function setOffline(on) {
  if (page.offline === on) return;
  page.offline = on;
  // The last move's notice lay over the banner saying the table cannot be reached.
  if (on && !$("notice").classList.contains("error")) $("notice").hidden = true;
  if (on) renderHeld(); else release();
}
// One action of this phone at a time: a tap while the last is on its way, or just answered,
// does nothing (the buttons show it: they are held).
async function sending(work) {
  if (held()) return null;
  page.sending = true;
  renderHeld();
  try {
    return await work();
  } finally {
    page.sending = false;
    page.settleUntil = performance.now() + SETTLE_MS;
    setTimeout(release, SETTLE_MS + 20);
  }
}

function renderFaults(state) {
  const list = Object.values(state.faults || {});
  const el = $("faults");
  el.replaceChildren(...list.map((f) => h("div", {class: "fault", text: typeof f === "string" ? f : (f.text || f.message || JSON.stringify(f))})));
  el.hidden = list.length === 0;
}

function renderBanners(state) {
  const pal = $("palifico");
  if (state.palifico && state.phase !== "over") {
    const opts = state.options || {};
    const declared = (state.bids || []).find((b) => b.action === "palifico");
    let mode = null;
    if (declared) mode = "(" + (declared.mode || state.palifico_mode) + ")";
    else if (palificoChoicePending(state)) mode = "(closed unless declared open)";
    else if (opts.palifico_choice) mode = "(closed)";
    const rules = [];
    if (!state.aces_wild) rules.push("aces are not wild");
    if (opts.palifico_face_change === "one_die") rules.push("only players with one die may change the face");
    else rules.push("the face is locked");
    if (declared && declared.mode === "open") rules.push("open: each sees the others' dice, not their own");
    const rest = " has one die: " + rules.join("; ");
    // Spaces between the parts: a line may break there, not inside the player's name. On a
    // short screen, in place of the banner, the standing bid's label says the round and its
    // player, and the rules go under the controls (CSS): DUDO in view as in any other round.
    sayOnce(pal, mode + state.palifico + rest, () => {
      pal.replaceChildren(h("strong", {text: "PALIFICO"}), " ",
        ...(mode ? [h("span", {class: "pal-mode", text: mode}), " "] : []),
        h("span", {text: state.palifico + rest}));
      // (Still to declare, the choice's row under it says so.)
      const tagMode = mode && !palificoChoicePending(state) ? mode + " " : "";
      $("pal-tag").textContent = "PALIFICO " + tagMode + state.palifico;
      $("palifico-rules").textContent = "Palifico: " + state.palifico + rest;
    });
    pal.hidden = $("pal-tag").hidden = $("palifico-rules").hidden = false;
    const key = state.round + ":" + state.palifico;
    if (page.lastPalifico !== key) {
      page.lastPalifico = key;
      buzz([200, 100, 200]);
    }
  } else {
    saidNothing(pal);
    $("pal-tag").hidden = $("palifico-rules").hidden = true;
  }
  const win = $("winner");
  if (state.winner) {
    // The next step, where the players look: the new-game form is far down the page.
    const next = page.control ? h("button", {type: "button", id: "to-new-game", class: "quiet", onclick: () => {
      $("setup").scrollIntoView({block: "start"});
      const name = $("seats").querySelector("input[type=text]");
      if (name) name.focus({preventScroll: true});
    }}, "New game \u2193") : null;
    // Built once: said once, and the New game button keeps the keyboard's focus.
    sayOnce(win, [state.game_id, state.winner, state.round, !!next].join("|"), () => win.replaceChildren(
      h("strong", {text: state.winner + " wins!"}), h("span", {text: "Game over after " + state.round + (state.round === 1 ? " round" : " rounds")}), ...(next ? [next] : [])));
    win.hidden = false;
  } else {
    saidNothing(win);
  }
}

function renderBid(state) {
  $("bid-card").hidden = state.phase === "over";
  const bid = state.bid;
  const el = $("bid");
  if (bid) {
    el.replaceChildren(h("span", {class: "qty", text: String(bid.quantity)}), h("span", {class: "times", text: "\u00d7"}), die(bid.face, "big"));
    $("bid-by").textContent = "by " + bid.player;
  } else {
    const passer = standingPass(state);
    const none = state.phase === "over" ? "\u2014" : passer ? passer + " passes"
      : (players(state).length ? "no bid yet" : "no game yet");
    el.replaceChildren(h("span", {class: "none", text: none}));
    $("bid-by").textContent = "";
  }
  const odds = state.odds;
  $("odds").textContent = bid && odds && odds.chance !== null && odds.chance !== undefined
    ? pct(odds.chance) + " likely true (" + odds.expected.toFixed(1) + " expected)" : "";
  const turn = $("turn");
  // At a large text size (the phone's setting) a name beside "to raise or call" kept a letter
  // or none: the name has a line of its own, always while the text is that large, so the
  // buttons below stay put as the turn goes round.
  page.textFitted = parseFloat(getComputedStyle(document.documentElement).fontSize);
  document.body.classList.toggle("large-text", page.textFitted >= LARGE_TEXT_PX);
  const passer = standingPass(state);
  // One line while a game is played, so that the buttons below never move as it changes: a
  // long name is cut short (the players' list shows it whole), and the words after it kept.
  // On a narrow phone the words are said shorter rather than the name cut to a letter or two
  // ("M" read as "I must raise or call the pass"): it keeps five letters' width at least.
  const oneLine = (who, ...whats) => sayOnce(turn, "1" + who + whats[0] + "@" + turn.clientWidth + "/" + page.textFitted, () => {
    turn.classList.add("one-line");
    turn.title = who + whats[0];
    const name = h("span", {class: "who", text: who});
    const words = h("span", {class: "what", text: whats[0]});
    turn.replaceChildren(name, words);
    const least = 5 * parseFloat(getComputedStyle(name).fontSize);
    // (The words cut too, where the name has a line of its own at a large text size: "must
    // raise or c..." at twice the text on a 390 px phone, session 92's audit.)
    // (Measured to the fraction of a pixel: words 0.4 px too wide lost their last letters.)
    const wide = (el) => { const all = document.createRange(); all.selectNodeContents(el); return all.getBoundingClientRect().width; };
    for (const shorter of whats.slice(1)) {
      if (name.clientWidth >= Math.min(name.scrollWidth, least) && wide(words) <= words.getBoundingClientRect().width + 0.01) break;
      words.textContent = shorter;
      words.setAttribute("aria-hidden", "true");
    }
    // A screen reader still says the whole line.
    if (words.hasAttribute("aria-hidden")) turn.append(h("span", {class: "sr-only", text: whats[0]}));
  });
  const says = (text) => sayOnce(turn, "0" + text, () => { turn.classList.remove("one-line"); turn.title = ""; turn.textContent = text; });
  if (cupsUpBeforeTheCamera(state)) oneLine("Cups up:", " the camera looks");
  else if (lookingAgain(state)) oneLine("Cups up:", " the camera looks again");
  else if (state.phase === "reveal" && state.reading && !state.reading.applied) oneLine("Cups up:", " check the reading");
  else if (state.phase === "reveal") oneLine("Cups up:", " type the dice in");
  else if (state.turn && passer) {
    const move = bid ? "raise" : "bid";
    oneLine(state.turn, " must " + move + " or call the pass", " must " + move + " or call", " to play");
  } else if (state.turn) oneLine(state.turn, ...(bid ? [" to raise or call", " to play"] : [" to open"]));
  else if (state.phase === "over") says("");
  // Only a phone with the PIN can start one: the others are told who can.
  else says(page.control ? "Start a game below" : "Whoever has the table PIN starts a game");
  renderDial(state);
}

// The panel has no display: every phone shows the bid its dial is on, to push.
function renderDial(state) {
  const dial = state.phase === "bidding" && state.turn && (state.display || {}).dial;
  $("dial").hidden = !dial;
  $("dial").textContent = dial ? "panel: " + String(dial).replace("x", "\u00d7") : "";
}

// Black or white, whichever reads better on a player's colour (#rrggbb): a seat's number.
// [red, green, blue] 0-255 of a "#rrggbb" colour (null for anything else).
function rgbOf(colour) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  return m ? m.slice(1).map((x) => parseInt(x, 16)) : null;
}
function inkOn(colour) {
  const rgb = rgbOf(colour);
  if (!rgb) return "#fff";
  const [r, g, b] = rgb.map((x) => { const c = x / 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
  const light = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (light + 0.05) / 0.05 > 1.05 / (light + 0.05) ? "#111" : "#fff";
}

function renderPlayers(state) {
  const bidder = state.bid && state.bid.player;
  $("players").replaceChildren(...players(state).map((p, i) => {
    const cups = [];
    const n = typeof p.dice === "number" ? p.dice : null;
    if (n !== null) for (let k = 0; k < n; k++) cups.push(h("span", {class: "cupdie"}));
    const colour = colourOf(state, p.name);
    const turn = state.turn === p.name;
    // A screen reader hears each line as the page shows it: whose turn, the dice, the badges.
    return h("li", {class: ["player", p.out ? "out" : "", turn ? "turn" : "", state.palifico === p.name ? "pal" : ""].join(" "), "aria-current": turn ? "true" : null},
      h("span", {class: "seat", text: String(p.seat), style: colour && !p.out ? "background:" + colour + ";color:" + inkOn(colour) + ";text-shadow:none" : null}),
      h("span", {class: "name", text: p.name}),
      turn ? h("span", {class: "sr-only", text: " (to act)"}) : null,
      // The badges, the cup and the count go together: at the right of the name, or all
      // below it, still at the right, when the name needs the row (large text, a long name).
      // The badges first: every row's cup and count stay in one column as the bid moves.
      h("span", {class: "holds"},
        bidder === p.name ? h("span", {class: "badge", text: "bid"}) : null,
        p.palifico_used ? h("span", {class: "badge pal", title: "palifico played"}, h("span", {"aria-hidden": "true", text: "P"}), h("span", {class: "sr-only", text: "palifico played"})) : null,
        h("span", {class: "cup", role: "img", "aria-label": n === null ? "dice hidden" : n + (n === 1 ? " die" : " dice")}, cups.length ? cups : h("span", {text: n === null ? "?" : ""})),
        h("span", {class: "count", "aria-hidden": "true", text: p.left ? "left" : p.out ? "out" : (n === null ? "?" : String(n))}),
        p.out ? h("span", {class: "sr-only", text: p.left ? " left the table" : " out"}) : null),
    );
  }));
  const parts = [];
  if (state.dice_in_play !== null && state.dice_in_play !== undefined) parts.push(state.dice_in_play + (state.dice_in_play === 1 ? " die" : " dice") + " in play");
  if (state.dice_lost !== null && state.dice_lost !== undefined) parts.push(state.dice_lost + " lost");
  // Dice that left with a player who got up: neither in play nor lost (RULES.md).
  if (state.dice_left_with_players) parts.push(state.dice_left_with_players + " left with " + (players(state).filter((p) => p.left).length === 1 ? "a player" : "players"));
  // None before the first game: "0 dice in play · 0 lost" over an empty list said nothing.
  $("dice-totals").textContent = players(state).length ? parts.join(" \u00b7 ") : "";
  $("rules-line").textContent = rulesInWords(state);
  renderLeave(state);
}

// "Rules: perudo · 5 dice each · aces wild · no exact call · no pass · palifico once": what a
// phone that did not start the game cannot see otherwise (and what the P badge means).
function rulesInWords(state) {
  const o = state.options;
  if (!o || !players(state).length) return "";
  const said = ["Rules: " + state.rules, o.dice + (o.dice === 1 ? " die" : " dice") + " each",
    o.wild_aces ? "aces wild" : "aces not wild",
    o.exact_call === "none" ? "no exact call" : exactCall(state) + " played",
    o.pass ? "pass played" : "no pass",
    o.palifico === "none" ? "no palifico" : "palifico " + (o.palifico === "once" ? "once" : "every time")
      + (o.palifico_choice ? ", open or closed" : "")];
  if (o.loss === "difference") said.push("the difference is lost");
  if (o.cruzado) said.push("dudo cruzado");
  if (o.direction === "alternating") said.push("the direction alternates");
  // The players' "?" in place of their dice: the table's rule, not something missing.
  if (o.lost_dice_visible === false) said.push("?: how many dice each holds is not shown (these rules)");
  if (players(state).some((p) => p.palifico_used)) said.push("P: palifico played");
  return said.join(" \u00b7 ");
}

// A player who gets up and goes (RULES.md: out at once, their dice leave play): chosen, then
// the button tapped twice within 5 s, so that a slip of the finger puts nobody out.
const LEAVE_ARMED_MS = 5000;
const LEAVE_SECOND_TAP_MS = 400;
function renderLeave(state) {
  const playing = state.phase === "bidding" || state.phase === "reveal";
  // A player knocked out may go too: another game of the table seats them no more.
  const names = playing ? (state.players || []).filter((p) => !p.left).map((p) => p.name) : [];
  $("leave-row").hidden = !page.control || !names.length;
  const select = $("leaver");
  const keep = select.value;
  select.replaceChildren(h("option", {value: "", text: "who?"}), ...names.map((n) => h("option", {value: n, text: n})));
  select.value = names.includes(keep) ? keep : "";
  const armed = page.leaving && page.leaving.name === select.value && page.leaving.until > Date.now();
  if (!armed) page.leaving = null;
  $("leave").disabled = !select.value;
  $("leave").textContent = armed ? select.value + " leaves: tap again" : "Leaves";
  $("leave").classList.toggle("armed", Boolean(armed));
  renderHeld();  // a player chosen while the game just moved: Leaves stays held, as all
}
$("leaver").addEventListener("change", () => { page.leaving = null; if (page.state) renderLeave(page.state); });
$("leave").addEventListener("click", () => {
  const name = $("leaver").value;
  if (!name || !page.state) return;
  // The second tap counts from a moment after the first: a double tap is one slip.
  if (page.leaving && page.leaving.name === name && page.leaving.until > Date.now()) {
    if (Date.now() < page.leaving.from + LEAVE_SECOND_TAP_MS) return;
    page.leaving = null;
    $("leaver").value = "";
    act({action: "leave", player: name});
  } else {
    page.leaving = {name, from: Date.now(), until: Date.now() + LEAVE_ARMED_MS};
    setTimeout(() => { if (page.state) renderLeave(page.state); }, LEAVE_ARMED_MS + 100);
  }
  renderLeave(page.state);
});

const SAYS = {pass: "passes", dudo: "calls dudo!", palifico: "declares the round", leave: "leaves the table"};
function bidLine(b, before, state) {
  if (b.action && b.action !== "bid") {
    const mode = b.mode ? " " + b.mode : "";
    // The record's `calza` is the table's exact call; a dudo right after a pass calls the pass.
    const says = b.action === "calza" ? "calls " + exactCall(state) + "!"
      : b.action === "dudo" && before && before.action === "pass" ? "calls " + before.player + "'s pass!"
      : SAYS[b.action] || b.action;
    return h("li", {class: "call-line"}, h("span", {text: b.player + " " + says + mode}));
  }
  return h("li", {}, h("span", {text: b.player + " "}), h("b", {text: b.quantity + " \u00d7 "}), die(b.face, "small"));
}
function renderRoundBids(state) {
  const bids = state.bids || [];
  $("round-bids").replaceChildren(...bids.map((b, i) => bidLine(b, bids[i - 1], state)));
}

// The table's exact call in words ("spot on"), as its button names it in capitals.
function exactCall(state) {
  return String((state.options || {}).exact_call || "calza").replace("_", " ");
}

function renderReveal(state) {
  const reading = state.reading;
  const result = state.last_result;
  const inReveal = state.phase === "reveal";
  const again = lookingAgain(state);
  const card = $("reveal");
  // Looking again, the card keeps the height it had: the page below does not move up.
  if (again && !card.hidden && !card.style.minHeight) card.style.minHeight = card.getBoundingClientRect().height + "px";
  if (!again) card.style.minHeight = "";
  // While the cups come up, before the camera looks, there is nothing yet to show in it.
  card.hidden = !(inReveal || reading || result) || cupsUpBeforeTheCamera(state);
  page.lastPicture = inReveal && reading ? {game_id: state.game_id, round: state.round}
    : again ? page.lastPicture : null;
  $("reading-again").hidden = !again;
  // Into the next round, it is the last round's reveal: say which, above the new bids.
  const shown = inReveal ? null : (reading && reading.round) || (result && result.round);
  $("reveal-title").textContent = shown && shown < state.round ? "Last reveal (round " + shown + ")" : "Reveal";
  const img = $("reveal-img");
  const pending = inReveal && reading && !reading.applied;
  if (reading) {
    // The picture's own number: two pictures of one round may read as many dice as fast.
    const key = [state.game_id, reading.round, reading.picture, reading.total, reading.ms].join("-");
    const src = "/api/reveal.jpg?t=" + encodeURIComponent(key);
    // A tap opens it full size, where a phone zooms in on the dice's numbers.
    // The picture before stays dimmed until the new one has come (its load ends it).
    if (img.dataset.src !== src) { img.src = src; img.dataset.src = src; } else img.classList.remove("again");
    $("reveal-link").href = src;
    img.hidden = $("reveal-link").hidden = false;
    // A phone re-renders on every event: the faces a player set must survive it, and
    // belong only to the picture they were set on.
    if (page.readingKey !== key) { page.readingKey = key; page.picks = {}; }
    if (!pending && Object.keys(page.picks).length) lostPicks(reading);
    const faces = (reading.dice || []).map((d, i) => (pending && page.picks[i]) || d.face);
    renderCounts(pending ? countFaces(faces) : (reading.counts || {}));
    // The picture keeps the camera's numbers: the dice the players corrected are said.
    const fixed = reading.applied ? Object.entries(reading.corrections || {}) : [];
    $("reading-corrected").hidden = !fixed.length;
    $("reading-corrected").textContent = fixed.length ? "Corrected before it counted (the picture"
      + " shows the camera's reading): " + fixed.map(([i, face]) => {
        const owner = ((reading.dice || [])[Number(i)] || {}).owner;
        return "die " + (Number(i) + 1) + (owner ? " (" + owner + ")" : "") + " as " + face;
      }).join(", ") + "." : "";
  } else if (again) {
    // The picture before, no longer a link (the table has none to give until the new one),
    // nor its counts: the new picture's may differ.
    img.classList.add("again");
    $("reading-corrected").hidden = true;
    $("reveal-link").removeAttribute("href");
    renderCounts(null);
  } else {
    img.classList.remove("again");
    img.hidden = $("reveal-link").hidden = true;  // nothing for the keyboard to reach either
    // Dice typed in by hand have no picture: their counts are still the reveal's to show.
    const typed = !inReveal && result && (result.faces || (result.dice && Object.values(result.dice).flat()));
    renderCounts(typed ? countFaces(typed) : null);
    // Said on every phone (a picture's corrections are): these counts were typed, not read
    // (a reading's counts, its picture gone at the next round's first bid, are not).
    const byHand = !!typed && !!state.reveal_typed;
    $("reading-corrected").hidden = !byHand;
    $("reading-corrected").textContent = byHand ? "Typed in by hand"
      + (state.reveal_typed_over_reading ? ", in place of the camera's reading." : ".") : "";
    page.readingKey = null;
    page.picks = {};
  }
  // A player counting the pips in the picture counts the faces on the glass: 7 minus the top.
  $("reveal-caption").hidden = $("reveal-link").hidden;
  $("reading-check").hidden = !pending;
  if (pending) {
    // A reading with a die too few or too many cannot be confirmed (the table refuses it):
    // say so, and offer what can work.
    const seen = reading.total !== undefined ? reading.total : (reading.dice || []).length;
    const must = Object.values(reading.expected || {}).reduce((a, b) => a + b, 0);
    const wrongCount = !!reading.expected && seen !== must;
    // A call settled on some players' dice alone (a called pass) takes the picture only where
    // it tells whose each die is: else the table refuses it, and they are counted by hand.
    const unowned = !wrongCount && !!reading.must_show && !ownersAgree(reading);
    // A count that cannot be confirmed is said once, with what to do, on a phone that can do it.
    const countSaid = wrongCount && page.control;
    const why = (reading.disagreements || [])
      .filter((d) => !(countSaid && d.startsWith("the camera saw "))).join("; ");
    // Whose each die is counts only where some players' dice alone settle the call: else a
    // die seen as another player's is no mistake to mend (the page cannot, nor need it).
    const owned = (reading.dice || []).some((d) => d.owner);
    const owners = owned && !wrongCount && !unowned && !reading.must_show && !ownersAgree(reading)
      ? " Whose die is whose does not change this count: correct any face, then confirm." : null;
    const todo = !page.control ? " Whoever has the PIN confirms or corrects it."
      : wrongCount ? "" : unowned ? " Count them in the form below." : owners || " Correct any die, then confirm.";
    $("reading-why").textContent = (why ? "Check the reading: " + why + "." : "Check the reading.") + todo;
    $("reading-count").hidden = !wrongCount || !page.control;
    $("reading-count").textContent = wrongCount
      ? "The camera saw " + seen + (seen === 1 ? " die, " : " dice, ") + must + " must show: take the picture again, or enter the dice by hand below." : "";
    $("reading-actions").hidden = !page.control;
    $("confirm-reading").disabled = wrongCount || unowned || !page.control;
    $("retake").disabled = !page.control;
    const doubtful = new Set(reading.doubtful || []);
    // The doubtful dice first, where the players look (each keeps its number on the picture).
    const order = (reading.dice || []).map((d, i) => i).sort((a, b) => doubtful.has(b) - doubtful.has(a) || a - b);
    // Built again only when they change: every event redraws the page, and a big table's
    // sixty dice built again each time made each redraw take a tenth of a second or more.
    const rowsFor = JSON.stringify([page.readingKey, reading.dice, reading.doubtful, page.picks, page.control]);
    if ($("reading-dice").dataset.rowsFor !== rowsFor) rebuildKeepingFocus($("reading-dice"), "data-index", order.map((i) => reading.dice[i]).map((d, k) => {
      const i = order[k];
      const face = page.picks[i] || d.face;
      const number = (typeof d.index === "number" ? d.index : i) + 1;
      const who = [d.colour, d.owner].filter(Boolean);
      const name = "die " + number + (who.length ? " (" + who.join(", ") + ")" : "");
      // The "?" on a doubtful die is drawn: its name says it too.
      const sel = h("select", {"data-index": String(i), disabled: !page.control,
        "aria-label": name + (doubtful.has(i) ? ", the camera is unsure" : "")},
        [1, 2, 3, 4, 5, 6].map((f) => h("option", {value: String(f), selected: f === face, text: String(f)})));
      sel.addEventListener("change", () => {
        const picked = Number(sel.value);
        if (picked === d.face) delete page.picks[i]; else page.picks[i] = picked;
        render(page.state);
      });
      const marks = (doubtful.has(i) ? " doubt" : "") + (face !== d.face ? " corrected" : "");
      const swatch = d.colour ? h("span", {class: "swatch", style: "background:" + cssColour(d.colour)}) : null;
      // The owner first: a narrow box cuts the colour's name short (its dot stays), not theirs.
      const tag = h("span", {class: "die-tag"}, h("b", {class: "die-no", text: "#" + number}), swatch,
        who.length ? h("span", {class: "die-who", text: [...who].reverse().join(" \u00b7 ")}) : null);
      return h("label", {class: "reading-die" + marks, "data-number": String(number), title: name + ": read as " + d.face + " (" + pct(d.confidence) + " sure)"},
        tag, h("span", {class: "die-pick"}, die(face, "small"), sel));
    }));
    $("reading-dice").dataset.rowsFor = rowsFor;
  }
  // The players can always type the dice in instead: a reading may have missed a die.
  const manual = inReveal && !state.capturing && page.control && !(reading && reading.applied);
  $("manual").hidden = !manual;
  if (manual) renderManual(state);
  // The boxed edition's partial reveal: the cups lifted in turn until the bid is reached.
  const inTurn = manual && state.call && Array.isArray(state.call.cups_in_turn) ? state.call.cups_in_turn : null;
  $("cups").hidden = !inTurn;
  if (inTurn) renderCups(state, inTurn);
  // While the cups are up the result is this call's, not yet known: not the last round's. A
  // phone without the PIN, where no picture is read, says who the table waits for.
  const typing = inReveal && !state.capturing && !reading && !page.control;
  $("result").replaceChildren(...(typing ? [h("p", {text: WAITING_FOR_THE_DICE})] : inReveal ? [] : resultLines(result, state.options)));
}

// Whether every die of the reading has an owner, and each player as many dice as expected.
function ownersAgree(reading) {
  const expected = reading.expected || {};
  const seen = {};
  for (const d of reading.dice || []) {
    if (!d.owner || !(d.owner in expected)) return false;
    seen[d.owner] = (seen[d.owner] || 0) + 1;
  }
  return Object.keys(expected).every((name) => (seen[name] || 0) === expected[name]);
}

// A reader's colour name as a CSS colour (only names and hex the browser knows; else grey).
function cssColour(name) {
  const c = String(name);
  return window.CSS && CSS.supports && CSS.supports("color", c) ? c : "var(--dim)";
}

// How many dice show each face (none: the row is empty).
function renderCounts(counts) {
  $("counts").replaceChildren(...(counts ? [1, 2, 3, 4, 5, 6].map((f) => h("span", {class: "count-face", "data-face": String(f)}, die(f, "small"), h("b", {text: "\u00d7" + (counts[f] || counts[String(f)] || 0)}))) : []));
}

function countFaces(faces) {
  const counts = {1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0};
  for (const f of faces) counts[f] = (counts[f] || 0) + 1;
  return counts;
}

function resultLines(result, options) {
  if (!result) return [];
  if (typeof result === "string") return [h("p", {text: result})];
  const lines = [];
  if (result.text) {
    // A called pass is settled on the passer's dice alone: shown, beside the table's counts.
    const hand = result.call === "pass" && result.dice && result.dice[result.bidder];
    const passer = hand ? [h("p", {class: "hand"}, h("span", {text: result.bidder + "'s hand: "}), ...hand.map((f) => die(f, "small")))] : [];
    // Else each player's dice as the reveal gave them out (the camera by colour or seat zone,
    // or typed in cup by cup): each player finds their own at a glance, and a die given to
    // the wrong player shows. Not where the rules hide how many dice each player holds.
    const hands = !hand && result.dice && !(options && options.lost_dice_visible === false)
      ? [h("ul", {class: "hands", "aria-label": "each player's dice"}, ...Object.entries(result.dice).map(([name, faces]) =>
        h("li", {class: "hand"}, h("span", {text: name + ": "}), ...faces.map((f) => die(f, "small")))))] : [];
    return [h("p", {text: result.text}), ...passer, ...hands];
  }
  if (result.count !== undefined && result.bid) lines.push(h("p", {text: "Counted " + result.count + " for the bid " + result.bid.quantity + "\u00d7" + result.bid.face}));
  if (result.loser) lines.push(h("p", {class: "lost", text: result.loser + " loses " + (result.lost || 1) + (result.lost > 1 ? " dice" : " die")}));
  if (result.gainer) lines.push(h("p", {class: "gain", text: result.gainer + " gets a die back"}));
  if (result.out && result.out.length) lines.push(h("p", {class: "lost", text: [].concat(result.out).join(", ") + " out"}));
  return lines;
}

function renderManual(state) {
  const box = $("manual-faces");
  if (!box.children.length) {
    for (let f = 1; f <= 6; f++) {
      box.append(h("label", {class: "manual-face"}, die(f, "small"), h("input", {type: "number", min: "0", max: "60", value: "0", inputmode: "numeric", "data-face": String(f), "aria-label": "dice showing " + f})));
    }
    box.addEventListener("input", () => { page.manualTyped = page.state.reading && !page.state.reading.applied ? page.readingKey : null; manualTotal(); });
  }
  // The counts start from the camera's picture, as corrected on it, when there is one: a die
  // it missed is one number to change, not every die to count again. They follow the
  // corrections until a count is typed; counts typed stay until another picture comes.
  // A called pass is settled on the passer's dice alone: count those, not the table's (from
  // the picture, those it gave them).
  const passer = state.call && state.call.call === "pass" ? state.call.bidder : null;
  const from = state.reading && !state.reading.applied ? page.readingKey : null;
  const fill = from === null ? null : page.manualTyped === from ? page.manualFill : from + JSON.stringify(page.picks);
  if (fill !== page.manualFill) {
    page.manualFill = fill;
    const faces = from === null ? [] : (state.reading.dice || [])
      .map((d, i) => ({owner: d.owner, face: page.picks[i] || d.face}))
      .filter((d) => !passer || d.owner === passer).map((d) => d.face);
    const counts = countFaces(faces);
    box.querySelectorAll("input").forEach((inp) => { inp.value = String(counts[inp.dataset.face] || 0); });
  }
  // Who must show is known to the reading (a called pass: only the passer).
  const must = [state.expected_dice, state.reading && state.reading.expected]
    .find((m) => m && Object.keys(m).length);
  const expected = must
    ? Object.values(must).reduce((a, b) => a + b, 0)
    : (state.dice_in_play || activePlayers(state).reduce((a, p) => a + (p.dice || 0), 0));
  $("manual-expected").textContent = String(expected);
  manualTotal();
  const what = passer ? passer + "'s dice" : "the dice on the table";
  $("manual-lead").textContent = (state.reading ? "Or count " : "Count ") + what;
}

// How many dice the by-hand counts make, beside how many must show.
function manualTotal() {
  let total = 0;
  document.querySelectorAll("#manual-faces input").forEach((inp) => { total += Math.max(0, Number(inp.value) || 0); });
  $("manual-total").textContent = String(total);
  // The table takes every die that must show, no more, no fewer: the button says so first.
  const must = $("manual-expected").textContent;
  const short = must !== "" && total !== Number(must);
  const send = $("manual").querySelector("button[type=submit]");
  send.disabled = short;
  send.textContent = short ? total + " of " + must + " counted" : "Reveal";
}

function renderCups(state, inTurn) {
  $("cups-lead").textContent = "Or lift the cups one by one from " + state.call.caller + "'s left until the bid"
    + (state.bid ? " (" + state.bid.quantity + " \u00d7 " + state.bid.face + ")" : "") + " is reached, and type each cup's dice:";
  const rows = $("cups-rows");
  const key = state.game_id + "/" + state.moves;
  if (rows.dataset.key === key) return;  // typed faces stay while the page redraws
  rows.dataset.key = key;
  const expected = state.expected_dice || {};
  rows.replaceChildren(...inTurn.map((name) => h("label", {class: "cup-row"},
    h("span", {text: name + " (" + expected[name] + ")"}),
    h("input", {type: "text", inputmode: "numeric", autocomplete: "off", "data-player": name,
      placeholder: "e.g. 5 3 1", "aria-label": name + "'s dice, or empty for a cup still down"}))));
}

function renderControls(state) {
  const bidding = state.phase === "bidding";
  const reveal = state.phase === "reveal";
  const over = state.phase === "over";
  // In the reveal too: Undo takes back a mis-pressed call, before the camera looks if it can;
  // and after the end: a mis-typed last reveal or a mis-press that ended the game.
  const show = page.control && (bidding || reveal || over);
  $("controls").hidden = !show;
  // While the palifico player may still declare the round, the empty lines under "no bid yet"
  // give way to the choice's row: Bid stands where it stands in any other round.
  $("bid-card").classList.toggle("choosing", show && bidding && palificoChoicePending(state));
  if (!show) return;
  // Nothing to take back (a game just begun, every action so far undone): Undo is out of use,
  // not a tap the table refuses in red.
  $("undo").disabled = !state.undo_takes_back;
  $("picker").hidden = !bidding;
  $("calls").hidden = !bidding;
  $("caller-label").hidden = !bidding;
  if (!bidding) $("call-hint").hidden = true;  // who may call what: a bidding matter only
  const hint = $("undo-hint");
  if (bidding) saidNothing(hint); else hint.hidden = false;
  if (reveal) {
    hint.classList.toggle("urgent", cupsUpBeforeTheCamera(state));
    hint.classList.remove("calm");
    // Said of what Undo takes back now: after a player left, that leave (before, session 92's
    // audit, the call was said, and the first Undo brought the player back, the call standing).
    const text = state.undo_takes_back === "leave"
      ? "Undo now takes back the last player leaving, not the call."
      : cupsUpBeforeTheCamera(state)
        ? "A call pressed by mistake? Undo now, before the camera looks."
        : "A call pressed by mistake? Undo takes it back, though every die has been seen.";
    sayOnce(hint, text, () => { hint.textContent = text; });
  } else if (over) {
    hint.classList.remove("urgent");
    hint.classList.add("calm");
    const text = state.undo_takes_back === "leave"
      ? "A player left by mistake? Undo brings them back and the game goes on."
      : "The last reveal or call was a mistake? Undo takes it back and the game goes on.";
    sayOnce(hint, text, () => { hint.textContent = text; });
  }
  const choice = $("palifico-choice");
  choice.hidden = !(bidding && palificoChoicePending(state));
  // The banner above names the player: one row for the choice keeps Bid and DUDO in view.
  if (!choice.hidden) $("palifico-who").textContent = "Palifico:";
  // Closed is what a bid alone plays: marked so (a short screen's tag, in the banner's place,
  // has no room to say "closed unless declared open", and a bid played it closed unsaid).
  const closed = choice.querySelector("button[data-mode=closed]");
  closed.classList.toggle("chosen", !choice.hidden);
  closed.title = choice.hidden ? "" : "The round is closed unless declared open";
  if (!bidding) return;
  const opts = state.options || {};
  const exact = opts.exact_call && opts.exact_call !== "none";
  $("call-calza").hidden = !exact;
  if (exact) {
    const label = exactCall(state).toUpperCase();
    $("call-calza").textContent = label;
    // EXACTOMUNDO: a smaller letter keeps the three calls on one row of a phone.
    $("call-calza").classList.toggle("long", label.length > 8);
  }
  $("call-pass").hidden = !opts.pass;
  const caller = $("caller");
  const names = activePlayers(state).map((p) => p.name);
  const keep = caller.value;
  caller.replaceChildren(...names.map((n) => h("option", {value: n, text: n})));
  // A caller picked by hand holds until the next move; then it is the player to act again.
  const picked = caller.dataset.manual === state.game_id + "/" + state.moves;
  caller.value = names.includes(keep) && keep !== state.turn && picked ? keep : (state.turn || names[0] || "");
  renderCalls(state);
  renderPicker();
}

// "Ben may", "Ben, Caro may each": the players a call is open to, for a hint.
function mayEach(names) { return names.join(", ") + (names.length === 1 ? " may" : " may each"); }

// DUDO and CALZA for the chosen caller, PASS for the player to act: as the server allows now.
function renderCalls(state) {
  const who = $("caller").value;
  const passer = standingPass(state);
  // A standing pass is called, not the bid before it (RULES.md, "Pass"): the button says so.
  $("call-dudo").disabled = !mayCall(state, "dudo", who);
  // Said on two lines, the button is no wider than DUDO: the calls keep their row.
  $("call-dudo").textContent = passer ? "CALL\nPASS" : "DUDO";
  $("call-dudo").classList.toggle("two-lines", !!passer);
  $("call-dudo").title = passer ? "call " + passer + "'s pass" : "";
  $("call-calza").disabled = !mayCall(state, "calza", who);
  // Why the calls are greyed out when the caller was picked by hand: say so, in words.
  const anyCall = !$("call-dudo").disabled || (!$("call-calza").hidden && !$("call-calza").disabled);
  const hint = $("call-hint");
  hint.hidden = anyCall || !who || who === state.turn || !(state.bid || passer);
  // Who may make each call instead (perudo's calza is anyone's but the bidder's, not only
  // the player to act's): named, or the page seems to say only one player may.
  const callsOf = new Map();  // "Ben" -> ["DUDO", "SPOT ON"]: one line for the same callers
  for (const button of [$("call-dudo"), $("call-calza")]) {
    const names = (state.can_call || {})[button.id.slice(5)] || [];
    const key = names.join("\n");
    if (!button.hidden && names.length) {
      const label = button === $("call-dudo") && passer ? "the pass" : button.textContent;
      callsOf.set(key, [...(callsOf.get(key) || []), label]);
    }
  }
  const mayInstead = [...callsOf].map(([key, labels]) => mayEach(key.split("\n"))
    + " call " + labels.join(" or "));
  hint.textContent = hint.hidden ? "" : who + " may not call now: " + (mayInstead.length
    ? mayInstead.join("; ") + ": pick the caller above"
    : "pick the caller above, or " + (state.turn || "the player to act") + " calls");
  // An exact call the chosen caller may not make and others may (payroodo's exactomundo is
  // never the player to act's): say who, or the button only looks out of use.
  const exactBy = ((state.can_call || {}).calza || []).filter((n) => n !== who);
  if (hint.hidden && !$("call-calza").hidden && $("call-calza").disabled && exactBy.length) {
    hint.hidden = false;
    hint.textContent = $("call-calza").textContent + ": " + mayEach(exactBy)
      + " call it: pick the caller above";
  }
  // An exact call no one may make now: why, in the table's words (spot on with half the
  // dice gone), or the button only looks out of use.
  const refused = state.exact_call_refused;
  if (hint.hidden && !$("call-calza").hidden && $("call-calza").disabled && refused) {
    hint.hidden = false;
    hint.textContent = refused.charAt(0).toUpperCase() + refused.slice(1);
  }
  // A new round's first tap on Undo takes back the reveal that opened it, dice lost and all.
  if (hint.hidden && state.undo_takes_back === "reveal") {
    hint.hidden = false;
    hint.textContent = "Undo now takes back the reveal of round " + (state.round - 1);
  }
  $("call-pass").disabled = !mayCall(state, "pass", state.turn);
  renderHeld();
}

// The quantities the legal bids offer, by number (the bids come in the rules' rank, where
// aces sit among the other faces: stepping in that order went 4, 2, 5).
function quantities() { return [...new Set(page.bids.map((b) => b.quantity))].sort((a, b) => a - b); }
function position(state) { return state ? state.game_id + "/" + state.moves : null; }
function raise(state) { return state ? JSON.stringify([state.game_id, state.round, state.turn, state.bid]) : null; }
// How long the picker keeps the last bids shown, held, while the next move's are asked for:
// at every move it went blank ("–", "Asking the table for the bids…") for a network's
// round trip, and came back.
const BIDS_AWAITED_MS = 1000;
function renderPicker() {
  // Bids given before the game last moved (another phone or the panel bid since, and the
  // new ones are on their way) are not offered: the table would refuse them.
  const fresh = page.bidsFor === position(page.state);
  if (fresh) page.bidsAwaited = null;
  else if (!page.bidsLost && page.state && page.state.phase === "bidding" && $("qty").value !== "\u2013") {
    // The picker as it was, every part of it held, for a moment: the new bids are on their way.
    if (!page.bidsAwaited || page.bidsAwaited.for !== position(page.state)) {
      page.bidsAwaited = {for: position(page.state), from: performance.now()};
    }
    if (performance.now() - page.bidsAwaited.from < BIDS_AWAITED_MS) {
      $("picker").querySelectorAll("button, input").forEach((el) => { el.disabled = true; });
      setTimeout(renderPicker, BIDS_AWAITED_MS + 20);
      return;
    }
  }
  const bids = fresh ? page.bids : [];
  const qtys = quantities();
  // Another raise to make (another player's, another bid's, a new round's or game's): from
  // its lowest bid. The same raise (another player left meanwhile): the bid chosen stays.
  const raising = raise(page.state);
  if (page.choiceFor !== raising) { page.choice = null; page.choiceFor = raising; }
  if (fresh && (!page.choice || !bids.some((b) => b.quantity === page.choice.quantity && b.face === page.choice.face))) page.choice = bids[0] || null;
  const c = fresh ? page.choice : null;
  // A number being typed is not written over (a state arriving meanwhile).
  $("qty").disabled = !c;
  if (document.activeElement !== $("qty") || !c) $("qty").value = c ? String(c.quantity) : "\u2013";
  $("qty-down").disabled = !c || qtys.indexOf(c.quantity) <= 0;
  $("qty-up").disabled = !c || qtys.indexOf(c.quantity) >= qtys.length - 1;
  rebuildKeepingFocus($("faces"), "aria-label", [1, 2, 3, 4, 5, 6].map((f) => {
    const legal = c && bids.find((b) => b.quantity === c.quantity && b.face === f);
    return h("button", {type: "button", class: "face-btn" + (c && c.face === f ? " chosen" : ""), disabled: !legal, "aria-label": "face " + f,
      "aria-pressed": c && c.face === f ? "true" : "false", title: legal && legal.odds ? pct(legal.odds.chance) + " likely true" : null,
      onclick: () => { page.choice = legal; renderPicker(); }}, die(f), h("small", {text: legal && legal.odds ? pct(legal.odds.chance) : ""}));
  }));
  // A number being typed that is no bid's: Bid makes none (the tap that ends the typing
  // would have made the nearest, which it never showed).
  const typed = c && document.activeElement === $("qty") ? $("qty").value.trim() : "";
  const number = /^[0-9]+$/.test(typed) ? parseInt(typed, 10) : NaN;
  const unmatched = typed !== "" && number !== c.quantity;
  $("place-bid").disabled = !c || unmatched;
  $("place-bid").textContent = unmatched ? (isNaN(number) ? "Type how many dice"
      : "No bid of " + number + (number > qtys[qtys.length - 1] ? ": " + qtys[qtys.length - 1] + " at most"
      : number < qtys[0] ? ": " + qtys[0] + " at least" : ""))
    : c ? "Bid " + c.quantity + " \u00d7 " + c.face
    : page.bidsLost >= 3 ? "The table gives no bids now: asking again\u2026"
    : page.bidsLost || !fresh ? "Asking the table for the bids\u2026" : "No bid up to the dice in play";
  renderHeld();
}

function stepQuantity(dir) {
  const qtys = quantities();
  if (!page.choice) return;
  const q = qtys[qtys.indexOf(page.choice.quantity) + dir];
  if (q !== undefined) chooseAt(q);
}
// The bid of quantity `q` with the face chosen, where there is one, else its first.
function chooseAt(q) {
  const same = page.bids.find((b) => b.quantity === q && b.face === page.choice.face);
  page.choice = same || page.bids.find((b) => b.quantity === q);
  renderPicker();
}
$("qty-down").addEventListener("click", () => stepQuantity(-1));
$("qty-up").addEventListener("click", () => stepQuantity(1));

// The quantity typed (a big table's 60 dice are 59 taps of +): a legal one is chosen as it is
// typed, keeping the face where it can; when typing ends, the nearest legal one.
function chooseQuantity(nearest) {
  const qtys = quantities();
  const want = parseInt($("qty").value, 10);
  if (!page.choice || !qtys.length || isNaN(want)) { renderPicker(); return; }
  const q = nearest ? qtys.reduce((best, x) => (Math.abs(x - want) < Math.abs(best - want) ? x : best))
    : qtys.find((x) => x === want);
  if (q === undefined) { renderPicker(); return; }
  if (nearest) $("qty").value = String(q);
  chooseAt(q);
}
$("qty").addEventListener("focus", () => $("qty").select());
$("qty").addEventListener("input", () => chooseQuantity(false));
$("qty").addEventListener("change", () => chooseQuantity(true));
$("qty").addEventListener("keydown", (e) => { if (e.key === "Enter") $("qty").blur(); });
$("qty").addEventListener("blur", () => renderPicker());

async function loadBids() {
  const ask = ++page.bidsAsked;
  const asked = position(page.state);
  page.bidsWanted = null;
  // No bids to ask for: none are known (the PIN entered next, the button asks for them).
  if (!page.control || !page.state || page.state.phase !== "bidding") { page.bids = []; page.bidsFor = null; page.bidsLost = 0; return; }
  page.bidsWanted = asked;
  // An answer that never comes (a connection gone silently) is an ask lost, asked again
  // below: before (session 92's audit), the picker said "Asking the table" until the game
  // moved, the feed back and live meanwhile.
  const abandon = new AbortController();
  const timer = setTimeout(() => abandon.abort(), ANSWER_WAIT_MS);
  const data = await fetch("/api/bids", {credentials: "same-origin", signal: abandon.signal})
    .then((r) => (r.ok ? r.json() : null)).catch(() => null).finally(() => clearTimeout(timer));
  // Answers can come out of order: one to an older ask is for a game that has moved on.
  if (ask !== page.bidsAsked) return;
  page.bidsLost = data && data.bids ? 0 : page.bidsLost + 1;
  page.bids = page.bidsLost ? [] : data.bids;
  page.bidsFor = asked;
  renderPicker();
  // Asked again after 1, 2, 4... s (at most 30): a table that keeps failing is not pressed.
  if (page.bidsLost) setTimeout(() => { if (ask === page.bidsAsked) loadBids(); }, Math.min(30, 2 ** (page.bidsLost - 1)) * 1000);
}

// The legal bids change only as the game moves (its id and moves): a state that moved
// nothing (the panel's dial turned, the camera's light) asks for none again. Each phone with
// the PIN asked at every state, the table working them all out again for each: a dial turned
// ten clicks made ten asks a phone, and on a Pi's pace its push beeped 0.2 s late (session 79).
function loadBidsIfMoved() {
  const asked = page.control && page.state && page.state.phase === "bidding" && !page.bidsLost
    && page.bidsWanted === position(page.state);
  if (!asked) loadBids();
}

function act(action) {
  return sending(async () => {
    // The game as this phone shows it: if another phone or the panel acted meanwhile, the
    // table refuses (two phones pressing Undo for one mistake take back one action, not two).
    const s = page.state || {};
    const seen = typeof s.game_id === "number" && typeof s.moves === "number" ? {"X-Table-Seen": position(s)} : {};
    const data = await api("POST", "/api/actions", action, seen);
    if (data) applyAnswer(data);
    return data;
  });
}
function applyAnswer(data) {
  // The live feed may already have brought a newer state (the camera reads fast, an answer
  // can arrive after it): an answer older than what is shown must not take the page back.
  const stale = data.state && page.state && data.state.version < page.state.version;
  if (data.state && !stale) { renderFromTable(data.state); loadBidsIfMoved(); }
  // The live feed brings the same announcements: announce() shows each batch once.
  if (data.announcements) announce(data.announcements, data.state);
}

// What Bid said as the finger came down on it: the tap that ends a quantity's typing
// chooses the nearest bid under the finger, and that bid, never shown, is not made.
$("place-bid").addEventListener("pointerdown", () => {
  page.bidPressed = $("place-bid").disabled ? null : $("place-bid").textContent;
});
$("place-bid").addEventListener("click", (e) => {
  const c = page.choice;
  if (e.detail > 0 && page.bidPressed !== $("place-bid").textContent) return;  // a key: detail 0
  if (c && page.state.turn) act({action: "bid", player: page.state.turn, quantity: c.quantity, face: c.face});
});
$("call-dudo").addEventListener("click", () => act({action: "dudo", player: $("caller").value}));
$("call-calza").addEventListener("click", () => act({action: "calza", player: $("caller").value}));
$("call-pass").addEventListener("click", () => act({action: "pass", player: page.state.turn}));
$("undo").addEventListener("click", () => act({action: "undo"}));
$("caller").addEventListener("change", () => {
  const s = page.state;
  $("caller").dataset.manual = s ? s.game_id + "/" + s.moves : "";
  if (s) renderCalls(s);
});
document.querySelectorAll("#palifico-choice button").forEach((b) => b.addEventListener("click", () =>
  act({action: "palifico", player: page.state.palifico, mode: b.dataset.mode})));

// Faces this phone set on a reading that another phone confirmed without them: said (no phone
// sees another's picks until they are sent), for the players to undo and confirm again.
function lostPicks(reading) {
  const lost = page.confirming === reading.picture ? [] : Object.entries(page.picks).filter(
    ([i, face]) => reading.dice && reading.dice[i] && reading.dice[i].face !== face);
  page.picks = {};
  if (!lost.length) return;
  const dice = lost.map(([i, face]) => "die " + ((reading.dice[i].index ?? Number(i)) + 1) + " to " + face).join(", ");
  notice("Confirmed on another phone without this phone's " + (lost.length === 1 ? "correction" : "corrections")
    + " (" + dice + "): if the dice show " + (lost.length === 1 ? "it" : "them") + ", tap Undo and correct the reading again", "error");
}
$("confirm-reading").addEventListener("click", () => sending(async () => {
  const reading = page.state.reading || {};
  page.confirming = reading.picture;  // the answer's state may come first by the live feed
  const corrections = {};
  for (const [i, face] of Object.entries(page.picks)) {
    if (reading.dice && reading.dice[i] && reading.dice[i].face !== face) corrections[String(i)] = face;
  }
  // The picture the players checked: if it was taken again meanwhile, the table refuses.
  const data = await api("POST", "/api/reading", {confirm: true, corrections, picture: reading.picture});
  if (data) applyAnswer(data);
}));
// Back at a reveal by an undo, the cups may be down on the next round's dice: the camera
// would show them to every phone.
const RETAKE_AFTER_UNDO = "Take a new picture? Only if this round's dice show again, every cup"
  + " lifted: if they were rolled for the next round, the camera would show the new dice to"
  + " every phone. Cancel to confirm the reading or type the dice in.";
$("retake").addEventListener("click", () => sending(async () => {
  // The table itself takes no picture there until the players say the cups are up.
  const undone = Boolean(page.state && page.state.undone_into_reveal);
  if (undone && !confirm(RETAKE_AFTER_UNDO)) return;
  const data = await api("POST", "/api/reading", {retake: true, cups_up: undone});
  if (data) applyAnswer(data);
}));
$("manual").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const faces = [];
  document.querySelectorAll("#manual-faces input").forEach((inp) => {
    for (let k = 0; k < Number(inp.value || 0); k++) faces.push(Number(inp.dataset.face));
  });
  const data = await act({action: "reveal", faces});
  if (data) { document.querySelectorAll("#manual-faces input").forEach((inp) => { inp.value = "0"; }); page.manualFill = page.manualTyped = undefined; }
});

$("cups").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const dice = {};
  for (const inp of document.querySelectorAll("#cups-rows input")) {
    const typed = inp.value.replace(/[\s,]+/g, "");
    if (!typed) continue;  // a cup still down
    if (!/^[1-6]+$/.test(typed)) {
      notice(inp.dataset.player + "'s dice: type each die's face, 1 to 6", "error");
      inp.focus();
      return;
    }
    dice[inp.dataset.player] = [...typed].map(Number);
  }
  if (!Object.keys(dice).length) {
    notice("Type the dice of the cups lifted first", "error");
    return;
  }
  await act({action: "reveal", dice});
});

// ---------- announcements and history ----------
// A reveal's line says what was counted and why the bid stood or fell: its notice is longer,
// and stays longer.
const TOLD = new Set(["reveal", "lose", "gain", "out", "leave", "palifico", "winner"]);
function announce(list, state) {
  if (!list || !list.length) return;
  // An action's announcements come twice to the phone that made it (its answer and the live
  // feed), with the same state version: each line goes into the history once, and its
  // notice shows once. (A list cleared for a new game takes them again.)
  const key = state && state.version !== undefined && state.version !== null
    ? [state.game_id, state.version, list.map((a) => a.kind + ":" + a.text).join("|")].join("/") : null;
  const hist = $("history");
  // The history loaded from the table may hold these already: the feed can bring a move's
  // announcements after the history was read with it (a busy table, a feed opened again).
  const loaded = page.historyHas && state && state.game_id === page.historyHas.game_id
    && state.moves <= page.historyHas.moves;
  if (!loaded && (!key || ![...hist.children].some((li) => li.dataset.batch === key))) {
    for (const a of list) hist.prepend(h("li", {class: "a-" + a.kind, text: a.text, "data-batch": key}));
    while (hist.children.length > HISTORY_SHOWN) hist.lastChild.remove();
    page.historyLines += list.length;
    numberHistory();
  }
  if (key && page.announced.includes(key)) return;
  if (key) page.announced.push(key);
  if (page.announced.length > 100) page.announced.shift();
  // The notice says what a reveal counted, who lost or won what, and the last line (whose
  // turn it is): on a small phone "Last reveal" is below the controls. Not over a refusal or
  // a warning still shown: they are said nowhere else, where each announcement is in the
  // history.
  tell(list);
  if (list.some((a) => a.kind === "palifico" || a.kind === "winner")) buzz([200, 100, 200]);
}
function tell(list) {
  if ($("notice").hidden || !$("notice").classList.contains("error")) {
    const told = list.filter((a, i) => TOLD.has(a.kind) || i === list.length - 1);
    notice(told.map((a) => a.text).join(" \u00b7 "), list.some((a) => a.kind === "palifico") ? "palifico" : "",
      list.some((a) => a.kind === "reveal") ? 8000 : undefined);
  }
}

// The last reveal made while the page's feed was down (the phone offline, or the table
// started again in the middle of a reveal, which it settles as it starts), told as the
// phones that followed it were told: else "Ben is out" was in the history alone.
function tellMissedReveal(lines) {
  const at = lines.map((a) => a.kind).lastIndexOf("reveal");
  if (at >= 0) tell(lines.slice(at));
}

// The newest lines the history shows (a long game's page stays light): as the page opens too.
// Each line keeps its number in the whole game's history (the list counts down from it).
const HISTORY_SHOWN = 300;
async function loadHistory() {
  const asked = ++page.historyAsked;
  const data = await fetch("/api/history", {credentials: "same-origin"}).then((r) => (r.ok ? r.json() : null)).catch(() => null);
  if (asked !== page.historyAsked) return;
  page.historyAnswered = asked;
  if (!data) return;
  // The game before the one this page shows (asked before it began, the page's feed opened
  // after; games are numbered as they start), or this game before moves the page has shown
  // since (the lines the feed added for them would go with the list): asked again, as
  // nothing else would ask.
  if (page.state && ((page.state.game_id || 0) > (data.game_id || 0)
      || (page.state.game_id === data.game_id && page.state.moves > data.moves))) {
    setTimeout(loadHistory, 300);
    return;
  }
  const newest = data.announcements.slice(-HISTORY_SHOWN).reverse();
  $("history").replaceChildren(...newest.map((a) => h("li", {class: "a-" + a.kind, text: a.text})));
  page.historyLines = data.announcements.length;
  page.historyHas = {game_id: data.game_id, moves: data.moves};
  numberHistory();
  const away = page.awayFrom;
  page.awayFrom = null;
  if (away && away.game_id === data.game_id) tellMissedReveal(data.announcements.slice(away.lines));
}
function numberHistory() {
  $("history").start = page.historyLines;
  $("history").style.setProperty("--digits", String(Math.max(3, String(page.historyLines).length)));
}

// The newest games; "Older games" adds the next page (a table keeps every game it played).
async function loadGames(url) {
  const data = await fetch(url || "/api/games", {credentials: "same-origin"}).then((r) => r.json()).catch(() => null);
  if (!data || !data.games) return;
  // The game under way at a table that hides the dice counts: its record, which counts
  // them, is the PIN holder's until it ends (a link would download a refusal).
  const kept = (g) => underWay(g) && (page.state || {}).dice_in_play === null && !page.control;
  const items = data.games.map((g) => h("li", {}, kept(g)
    ? h("span", {text: gameTitle(g) + " \u00b7 its record once it ends"})
    : h("a", {href: g.record, download: "", text: gameTitle(g)})));
  if (url) $("games").append(...items); else $("games").replaceChildren(...items);
  page.olderGames = data.more || null;
  $("older-games").hidden = !page.olderGames;
}
$("older-games").addEventListener("click", () => { if (page.olderGames) loadGames(page.olderGames); });
function gameTitle(g) {
  const who = g.players ? g.players.join(", ") : "";
  const win = g.winner ? " \u2014 " + g.winner + " won" : g.finished === false ? (underWay(g) ? " (being played)" : " (unfinished)") : "";
  return ["#" + g.id, g.rules || "", who, localTime(g.started || "")].filter(Boolean).join(" \u00b7 ") + win;
}
// Whether the listed game ``g`` is the one the table is playing (not over).
function underWay(g) {
  const s = page.state || {};
  return g.id === s.game_id && s.phase !== "over";
}
// The table keeps when each game started in UTC: shown in the phone's own time (a phone in
// Lima read an evening's games as started the next day).
function localTime(when) {
  const t = new Date(when);
  if (!when || isNaN(t.getTime())) return String(when).slice(0, 16).replace("T", " ");
  const two = (n) => String(n).padStart(2, "0");
  return t.getFullYear() + "-" + two(t.getMonth() + 1) + "-" + two(t.getDate()) + " " + two(t.getHours()) + ":" + two(t.getMinutes());
}

// ---------- the live feed ----------
let lastPhase = null;
function connect(lostAlready) {
  if (page.feed) page.feed.close();  // one feed at a time, whoever asked for a new one
  const es = new EventSource("/api/events");
  page.feed = es;
  page.heard = performance.now();
  let lost = Boolean(lostAlready);
  // Whatever the feed says, it is there ("alive" says only that, on a quiet table).
  ["open", "state", "capture_start", "capture_end", "alive"].forEach((kind) => es.addEventListener(kind, () => {
    page.heard = performance.now();
  }));
  es.addEventListener("open", () => {
    $("live").textContent = "live"; $("live").classList.add("on");
    setOffline(false);  // shows the last state again, with its controls enabled
    // The table may have restarted, or moved on: the next state is shown whatever its version.
    if (lost) {  // what was announced while the feed was down, and the PIN
      page.floor = -Infinity;
      page.awayFrom = page.state ? {game_id: page.state.game_id, lines: page.historyLines} : null;
      loadHistory();
      recheckControl();
      page.bidsWanted = null;  // the bids asked again with the next state
    }
    lost = false;
  });
  es.addEventListener("error", () => {
    lost = true;
    $("live").textContent = "reconnecting"; $("live").classList.remove("on");
    setOffline(true);
    // The browser retries by itself after a dropped connection, but gives up after an
    // answer that is not the feed (a 503 when too many phones follow): try again later.
    if (es.readyState === EventSource.CLOSED) setTimeout(() => connect(true), 5000);
  });
  es.addEventListener("state", (ev) => {
    const data = JSON.parse(ev.data);
    if (page.capturing && !data.state.capturing) {
      page.capturing = false;  // the picture is read: "Reading the dice" is over
      if ($("notice").textContent.startsWith("Reading the dice")) $("notice").hidden = true;
    }
    renderFromTable(data.state);
    announce(data.announcements, data.state);
    loadBidsIfMoved();
    // A game ends, or an undo takes its end back: the list of games says who won.
    if ((data.state.phase === "over") !== (lastPhase === "over") && lastPhase !== null) loadGames();
    lastPhase = data.state.phase;
  });
  es.addEventListener("rejected", (ev) => {
    const data = JSON.parse(ev.data);
    if (data.error) notice(data.error, "error");
  });
  es.addEventListener("capture_start", () => { page.capturing = true; notice("Reading the dice\u2026"); });
}

// A feed that has gone quiet for much longer than the table's "alive" beat, or a phone that
// says it is offline: the table is out of reach though the browser has not noticed (a phone's
// Wi-Fi dropped without closing the connection). Say so, hold the buttons, and connect again.
function reconnect() {
  $("live").textContent = "reconnecting"; $("live").classList.remove("on");
  setOffline(true);
  connect(true);
}
setInterval(() => {
  // A phone that says it is offline waits for its "online" (it says "offline" meanwhile).
  if (navigator.onLine === false) return;
  if (page.feed && performance.now() - page.heard > 2.5 * page.aliveS * 1000) reconnect();
}, 1000);
window.addEventListener("offline", () => {
  if (page.feed) page.feed.close();
  $("live").textContent = "offline"; $("live").classList.remove("on");
  setOffline(true);
});
window.addEventListener("online", () => reconnect());

