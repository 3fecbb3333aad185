// The simulated table panel of `dudo serve --sim`: presses mock pins through /api/sim.
"use strict";

// ---------- the simulated panel ----------
async function simPress(button, hold) {
  if (button === "seat") button = "seat" + openSeat(page.state);  // a seat button held
  const body = {button, hold_s: hold || 0};
  if (page.simSeat && ["dudo", "calza", "pass", "dial", "bid"].includes(button)) body.seat = page.simSeat;
  page.simSeat = null;
  await api("POST", "/api/sim/press", body);
  renderSim(page.state);
  pollPins();
}
document.querySelectorAll("#sim [data-button]").forEach((b) => b.addEventListener("click", () => simPress(b.dataset.button, Number(b.dataset.hold || 0))));
document.querySelectorAll("#sim [data-steps]").forEach((b) => b.addEventListener("click", async () => {
  await api("POST", "/api/sim/dial", {steps: Number(b.dataset.steps)});
}));

function renderSim(state) {
  const box = $("sim");
  box.hidden = !page.sim || !page.control || !state || !(state.players || []).length;
  if (box.hidden) return;
  const display = state.display || {};
  const dial = display.dial || display.bid || display.dial_bid;
  $("sim-dial-bid").textContent = dial ? (typeof dial === "string" ? dial : dial.quantity + "\u00d7" + dial.face) : "\u2013";
  const seated = panelSeats(state);
  const wrap = $("sim-seats");
  // Rebuilt for a new game's seats (the same number of players may have other names).
  const key = seated.map((p) => p.seat + " " + p.name).join("\n");
  if (wrap.dataset.key !== key) {
    wrap.dataset.key = key;
    wrap.replaceChildren();
    for (const p of seated) {
      const s = p.seat;
      wrap.append(h("button", {type: "button", class: "seat-btn", "data-seat": String(s), onclick: () => { page.simSeat = page.simSeat === s ? null : s; renderSim(page.state); }},
        h("span", {class: "led", id: "led-seat" + s}), h("span", {class: "seat-name", text: p.name, title: p.name})));
    }
  }
  wrap.querySelectorAll(".seat-btn").forEach((b) => b.classList.toggle("chosen", Number(b.dataset.seat) === page.simSeat));
  // The exact call's button is CALZA, as on the hardware: what it calls at this table.
  const exact = (state.options || {}).exact_call || "none";
  $("sim-exact").hidden = exact === "calza";
  $("sim-exact").textContent = exact === "none" ? "not played here" : exactCall(state);
  const passing = Boolean((state.options || {}).pass);
  $("sim-pass").hidden = passing;
  $("sim-pass").textContent = passing ? "" : "not played here";
  // At a table where the one-die player chooses: their seat held plays the round open.
  $("sim-open").hidden = !(state.options || {}).palifico_choice;
  // The dial's push held starts a new game only once this one is over (before, a push bids).
  $("sim-again").hidden = state.phase !== "over";
  $("sim-open").disabled = !state.palifico || !openSeat(state);
}

// The players whose seats have a button on the simulated panel (seats 1-6), each by their
// seat (a player keeps theirs in another game after someone before them left).
function panelSeats(state) {
  return (state.players || []).filter((p) => p.seat <= 6);
}

// The seat held for an open palifico: the seat chosen, else the one-die player's own.
function openSeat(state) {
  const own = panelSeats(state).find((p) => p.name === state.palifico);
  return page.simSeat || (own ? own.seat : null);
}

// The pins are asked for every half second (setup.js), one ask at a time (given up after 5 s).
// Off the live feed the table is out of reach: nothing is asked until the feed is back. An
// ask that fails (the feed may not have noticed yet) waits 1 s, then 2, 4... up to 16 s.
const pins = {asking: false, lost: 0, waitUntil: 0};
async function pollPins() {
  if (page.offline) { pins.lost = 0; pins.waitUntil = 0; return; }
  if (!page.sim || $("sim").hidden || pins.asking || performance.now() < pins.waitUntil) return;
  pins.asking = true;
  const abandon = new AbortController();  // AbortSignal.timeout is missing from older phones
  const timer = setTimeout(() => abandon.abort(), 5000);
  const data = await fetch("/api/sim/pins", {credentials: "same-origin", signal: abandon.signal}).then((r) => (r.ok ? r.json() : null)).catch(() => null);
  clearTimeout(timer);
  pins.asking = false;
  if (!data) {
    pins.lost += 1;
    pins.waitUntil = performance.now() + Math.min(16, 2 ** (pins.lost - 1)) * 1000;
    return;
  }
  pins.lost = 0;
  pins.waitUntil = 0;
  const outs = data.outputs || {};
  const ledClass = (v) => "led" + (v === "on" ? " on" : v === "blink" ? " blink" : "");
  for (const [name, value] of Object.entries(outs)) {
    const seat = /^seat(\d)_led$/.exec(name);
    if (seat) { const led = $("led-seat" + seat[1]); if (led) led.className = ledClass(value); }
  }
  const others = ["palifico_led", "buzzer", "light"].filter((n) => n in outs);
  $("sim-leds").replaceChildren(...others.map((n) => h("span", {class: "out-pin", "data-pin": n, "data-value": outs[n]},
    h("span", {class: ledClass(outs[n])}), n.replace("_led", ""))));
}

