"use strict";
// The match viewer. Every value comes from the JSON the referee wrote into this page; text
// from bots (names, refused lines) is only ever set as textContent, never parsed as HTML.
(function () {
  const started = performance.now();
  const match = JSON.parse(document.getElementById("match-data").textContent);
  const steps = match.steps;
  const SEATS = ["A", "B", "C", "D"];
  const SIDE = { A: "AC", B: "BD", C: "AC", D: "BD" };
  const SIDE_NAME = { AC: "A+C", BD: "B+D" };
  const SVG = "http://www.w3.org/2000/svg";
  // The pips of each half, on a 3 x 3 grid (0-2 across, 0-2 down).
  const PIPS = {
    0: [], 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]],
    4: [[0, 0], [2, 0], [0, 2], [2, 2]], 5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
    6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]],
  };
  const state = { step: 0, view: match.perspectives[0], timer: null };

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    return node;
  }
  function tileName(code) { return "[" + Math.floor(code / 10) + "|" + (code % 10) + "]"; }

  // A domino drawn with pips: upright (hands, trick) or lying (piles); code null: its back.
  // Each is drawn once and copied after: a step redraws up to 40 of them.
  const drawn = new Map();
  function domino(code, lying, size) {
    const key = code + "/" + lying + "/" + size;
    if (!drawn.has(key)) drawn.set(key, drawDomino(code, lying, size));
    return drawn.get(key).cloneNode(true);
  }
  function drawDomino(code, lying, size) {
    const u = size || 24;
    const w = lying ? 2 * u : u, h = lying ? u : 2 * u;
    const node = svg("svg", { class: "domino", width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img" });
    if (code === null) {
      node.setAttribute("aria-label", "a hidden tile");
      node.setAttribute("data-tile", "hidden");
      node.appendChild(svg("rect", { class: "back", x: 1, y: 1, width: w - 2, height: h - 2, rx: u / 6 }));
      return node;
    }
    const name = tileName(code);
    node.setAttribute("aria-label", name);
    node.setAttribute("data-tile", name);
    const title = svg("title", {});
    title.textContent = name;
    node.appendChild(title);
    node.appendChild(svg("rect", { class: "face", x: 1, y: 1, width: w - 2, height: h - 2, rx: u / 6 }));
    node.appendChild(lying ? svg("line", { x1: u, y1: 3, x2: u, y2: u - 3 })
                           : svg("line", { x1: 3, y1: u, x2: u - 3, y2: u }));
    [Math.floor(code / 10), code % 10].forEach((pips, half) => {
      for (const [i, j] of PIPS[pips]) {
        const x = (lying ? half * u : 0) + u * (0.25 + 0.25 * i);
        const y = (lying ? 0 : half * u) + u * (0.25 + 0.25 * j);
        node.appendChild(svg("circle", { cx: x, cy: y, r: u / 11 }));
      }
    });
    return node;
  }

  // A tile as the table shows it: its pips, and under them its name ("[2|6]") while the
  // labels are on (the toggle in the bar; the choice is remembered). A hidden tile is its
  // back alone: it has no name to show.
  function tile(code, lying, size) {
    const drawnTile = domino(code, lying, size);
    if (code === null) return drawnTile;
    const box = el("span", { class: "tile" + (lying ? " lying" : "") });
    box.appendChild(drawnTile);
    box.appendChild(el("span", { class: "tile-label", "aria-hidden": "true" }, tileName(code)));
    return box;
  }

  const LABELS_KEY = "texas42-viewer-tile-labels";
  function labelsOn() {
    try { return localStorage.getItem(LABELS_KEY) !== "off"; } catch (e) { return true; }
  }
  function showLabels(on, remember) {
    document.body.classList.toggle("labelled", on);
    document.getElementById("labels").checked = on;
    if (!remember) return;
    try { localStorage.setItem(LABELS_KEY, on ? "on" : "off"); } catch (e) { /* not kept */ }
  }

  // The seat at the bottom: the perspective's own seat, else A; the others clockwise.
  function places() {
    const bottom = SEATS.includes(state.view) ? state.view : "A";
    const i = SEATS.indexOf(bottom);
    const at = {};
    ["bottom", "left", "top", "right"].forEach((place, k) => { at[SEATS[(i + k) % 4]] = place; });
    return at;
  }

  function nextSeat(step) {
    // Who acts next: shown as the seat with the highlighted border.
    const next = steps[state.step + 1];
    return next && next.hand === step.hand && next.seat ? next.seat : null;
  }

  function renderSeats(step, at) {
    const hands = step.hands[state.view] || {};
    const turn = nextSeat(step);
    for (const seat of SEATS) {
      const box = document.querySelector(`.seat[data-place="${at[seat]}"]`);
      box.replaceChildren();
      box.dataset.seat = seat;
      box.classList.toggle("turn", turn === seat);
      const who = el("div", { class: "who" });
      who.appendChild(el("span", { class: "seat-letter" }, seat + " ·"));
      who.appendChild(el("span", { class: "name" }, match.names[seat] || "(no name)"));
      who.appendChild(el("span", { class: "chip " + SIDE[seat] }, SIDE_NAME[SIDE[seat]]));
      if (step.dealer === seat) who.appendChild(el("span", { class: "chip dealer" }, "dealer"));
      if (step.declarer === seat) who.appendChild(el("span", { class: "chip declarer" }, "declarer"));
      const bid = step.bids.filter(([bidder]) => bidder === seat).pop();
      if (bid && !step.contract) who.appendChild(el("span", { class: "chip bid" }, bid[1]));
      box.appendChild(who);
      const tiles = el("div", { class: "tiles", "data-count": String(step.sizes[seat]) });
      if (hands[seat]) hands[seat].forEach((code) => tiles.appendChild(tile(code, false)));
      else for (let k = 0; k < step.sizes[seat]; k++) tiles.appendChild(domino(null, false));
      box.appendChild(tiles);
    }
  }

  function renderTrick(step, at) {
    const trick = document.getElementById("trick");
    trick.replaceChildren();
    for (const [seat, code] of step.trick || []) {
      const played = el("div", { class: "played", "data-place": at[seat], "data-seat": seat });
      if (step.winner === seat) played.classList.add("won");
      played.appendChild(tile(code, false, 30));
      played.appendChild(el("span", {}, seat));
      trick.appendChild(played);
    }
    if (step.taken) trick.appendChild(el("div", { class: "taken" }, step.taken));
  }

  function renderSide(step) {
    const score = document.getElementById("score");
    score.replaceChildren(el("span", {}, ""), el("span", { class: "AC" }, "A+C"), el("span", { class: "BD" }, "B+D"),
      el("span", {}, "marks"), el("span", { "data-marks": "AC" }, String(step.marks.AC)),
      el("span", { "data-marks": "BD" }, String(step.marks.BD)),
      el("span", {}, "hand points"), el("span", {}, String(step.points.AC)), el("span", {}, String(step.points.BD)));
    document.getElementById("contract").textContent =
      "Hand " + step.hand + (step.contract ? " · contract: " + step.contract : " · bidding");
    const bids = document.getElementById("bids");
    bids.replaceChildren(...step.bids.map(([seat, bid]) => el("li", {}, seat + " " + bid)));
    const ms = step.ms !== undefined && step.ms !== null ? " · " + step.ms + " ms" : "";
    document.getElementById("caption").textContent = step.text + ms;
    document.getElementById("result").textContent = step.result || "";
    const notes = document.getElementById("notes");
    notes.replaceChildren();
    for (const note of (step.notes && step.notes[state.view]) || []) {
      const item = el("li", { "data-kind": note.kind });
      item.appendChild(el("strong", {}, note.seat + ": " + note.text));
      if (note.detail) item.appendChild(el("div", {}, note.detail));
      if (note.raw !== undefined && note.raw !== null) {
        item.appendChild(el("div", {}, "sent:"));
        item.appendChild(el("pre", { class: "raw" }, note.raw));
      }
      notes.appendChild(item);
    }
    const piles = document.getElementById("piles");
    piles.replaceChildren();
    const all = match.piles[step.hand] || [];
    // Only the tricks taken by this step: ``captured`` is left out of the data when it is 0.
    const shown = state.view === "all" ? all.slice(0, step.captured || 0).map((p) => p.trick) : step.face_up;
    if (shown.length) piles.appendChild(el("h3", {}, "Captured piles face up"));
    for (const pile of all) {
      if (!shown.includes(pile.trick)) continue;
      const row = el("div", { class: "pile", "data-trick": String(pile.trick) });
      row.appendChild(el("span", { class: "label" },
        "trick " + pile.trick + " · " + SIDE_NAME[pile.side] + " · " + pile.points + " pt"));
      pile.tiles.forEach((code) => row.appendChild(tile(code, true, 16)));
      piles.appendChild(row);
    }
  }

  function renderPosition(step) {
    document.getElementById("slider").value = String(state.step);
    const tricks = Math.min((match.piles[step.hand] || []).length, step.captured || 0);
    document.getElementById("position").textContent =
      "step " + (state.step + 1) + " of " + steps.length + " · hand " + step.hand + " · trick " +
      Math.min(tricks + (step.trick && step.trick.length && step.trick.length < 4 ? 1 : 0), 7);
    document.querySelectorAll("#hands li").forEach((li) => li.classList.toggle("current", li.dataset.hand === String(step.hand)));
    renderNoteList();
    marksAt(step.hand);
    document.querySelectorAll("#perspectives button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.view === state.view)));
    keepInAddress();
  }

  // The address follows the position, at most every 200 ms: browsers ignore a flood of
  // history updates (holding an arrow key down), and each costs time.
  let addressTimer = null;
  let addressAt = 0;
  function keepInAddress() {
    const write = () => {
      addressTimer = null;
      addressAt = performance.now();
      const hash = "#step=" + (state.step + 1) + "&view=" + state.view;
      if (location.hash !== hash) history.replaceState(null, "", hash);
    };
    if (addressTimer !== null) return;
    const wait = 200 - (performance.now() - addressAt);
    if (wait <= 0) write(); else addressTimer = setTimeout(write, wait);
  }

  // Every refused answer and fault this perspective may read, each a link to its step.
  let notesShownFor = null;
  function renderNoteList() {
    if (notesShownFor === state.view) return;
    notesShownFor = state.view;
    const list = document.getElementById("all-notes");
    list.replaceChildren();
    steps.forEach((step, i) => {
      for (const note of (step.notes && step.notes[state.view]) || []) {
        const item = el("li", { "data-kind": note.kind });
        const link = el("a", { href: "#step=" + (i + 1) + "&view=" + state.view },
          "hand " + step.hand + ", " + note.seat + ": " + note.text);
        link.addEventListener("click", (event) => { event.preventDefault(); go(i); });
        item.appendChild(link);
        list.appendChild(item);
      }
    });
    if (!list.children.length) list.appendChild(el("li", { class: "none" }, "none"));
    // The same places as ticks on the slider.
    const ticks = document.getElementById("note-ticks");
    ticks.replaceChildren();
    steps.forEach((step, i) => {
      if (step.notes && (step.notes[state.view] || []).length) ticks.appendChild(el("option", { value: String(i) }));
    });
  }

  // Every hand dealt, each a link: a finished hand to the step that ended it, with its
  // result; a hand the match stopped in (a forfeit, a match cut short) to its deal, saying
  // how the match ended, so it can be stepped through up to where it stopped.
  function listHands() {
    const hands = document.getElementById("hands");
    const ended = new Map();
    steps.forEach((step, i) => { if (step.result) ended.set(step.hand, i); });
    steps.forEach((step, i) => {
      if (step.kind !== "deal") return;
      const done = ended.get(step.hand);
      const item = el("li", { "data-hand": String(step.hand), value: String(step.hand) });
      const at = done === undefined ? i : done;
      const text = done === undefined ? "unfinished: " + match.end : steps[done].result;
      if (done === undefined) item.dataset.unfinished = "true";
      const link = el("a", { href: "#step=" + (at + 1) }, "hand " + step.hand + ": " + text);
      link.addEventListener("click", (event) => { event.preventDefault(); go(at); });
      item.appendChild(link);
      hands.appendChild(item);
    });
  }

  // The marks over the match: each partnership's after every hand (a point per hand, hover
  // for its result, click to go there), the marks to win as a dashed line, and the hand
  // shown now.
  const PLOT = { left: 34, top: 12, width: 520, height: 150 };
  let marksPlot = null;
  function drawMarks() {
    const box = document.getElementById("marks-plot");
    const hands = [{ hand: 0, marks: { AC: 0, BD: 0 }, step: 0, text: "the start" }];
    steps.forEach((step, i) => {
      if (step.result) hands.push({ hand: step.hand, marks: step.marks, step: i, text: step.result });
    });
    const last = steps[steps.length - 1];
    const lastHand = hands[hands.length - 1].hand;
    const stopped = last.hand > lastHand && steps.some((s) => s.kind === "deal" && s.hand === last.hand);
    const count = Math.max(1, stopped ? last.hand : lastHand);
    const top = 1 + Math.max(match.target, ...hands.map((h) => Math.max(h.marks.AC, h.marks.BD)));
    const { left, width, height } = PLOT, up = PLOT.top;
    const x = (hand) => left + width * hand / count;
    const y = (marks) => up + height * (1 - marks / top);
    const plot = svg("svg", { class: "marks-plot", viewBox: `0 0 ${left + width + 90} ${up + height + 38}`,
      role: "img", "aria-label": "marks of A+C and B+D after each hand, against the " + match.target + " to win" });
    plot.appendChild(svg("rect", { class: "frame", x: left, y: up, width: width, height: height }));
    for (let m = 0; m <= top; m++) {
      const tick = svg("text", { class: "tick", x: left - 6, y: y(m) + 4, "text-anchor": "end" });
      tick.textContent = String(m);
      plot.appendChild(tick);
    }
    const every = Math.max(1, Math.ceil(count / 12));
    for (let h = 0; h <= count; h += every) {
      const tick = svg("text", { class: "tick", x: x(h), y: up + height + 16, "text-anchor": "middle" });
      tick.textContent = String(h);
      plot.appendChild(tick);
    }
    const axis = svg("text", { class: "axis", x: left + width / 2, y: up + height + 34, "text-anchor": "middle" });
    axis.textContent = "hands played";
    plot.appendChild(axis);
    plot.appendChild(svg("line", { class: "target", x1: left, y1: y(match.target), x2: left + width, y2: y(match.target) }));
    // Named at the left, above its line: the right edge is the sides' end labels'.
    const goal = svg("text", { class: "target-label", x: left + 6, y: y(match.target) - 4 });
    goal.textContent = match.target + " to win";
    plot.appendChild(goal);
    const now = svg("rect", { class: "now", x: 0, y: up, width: 0, height: height });
    plot.appendChild(now);
    const ends = [];
    for (const side of ["AC", "BD"]) {
      const group = svg("g", { class: "side " + side, "data-side": side });
      group.appendChild(svg("polyline", { points: hands.map((h) => x(h.hand) + "," + y(h.marks[side])).join(" ") }));
      for (const h of hands.slice(1)) {
        const dot = svg("circle", { cx: x(h.hand), cy: y(h.marks[side]), r: 4, tabindex: "0",
          "data-hand": String(h.hand), "data-marks": String(h.marks[side]) });
        const title = svg("title", {});
        title.textContent = "after hand " + h.hand + ": A+C " + h.marks.AC + ", B+D " + h.marks.BD + " (" + h.text + ")";
        dot.appendChild(title);
        const open = () => go(h.step);
        dot.addEventListener("click", open);
        dot.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.stopPropagation(); open(); } });
        group.appendChild(dot);
      }
      plot.appendChild(group);
      const final = hands[hands.length - 1];
      ends.push({ side: side, y: y(final.marks[side]), text: SIDE_NAME[side] + " " + final.marks[side] });
    }
    // The two end labels apart when the sides have the same marks (or nearly).
    if (Math.abs(ends[0].y - ends[1].y) < 14) {
      const middle = (ends[0].y + ends[1].y) / 2;
      const upper = ends[0].y <= ends[1].y ? 0 : 1;
      ends[upper].y = middle - 7;
      ends[1 - upper].y = middle + 7;
    }
    for (const end of ends) {
      const label = svg("text", { class: "end-label " + end.side, x: x(hands[hands.length - 1].hand) + 8, y: end.y + 4 });
      label.textContent = end.text;
      plot.appendChild(label);
    }
    if (stopped) {
      // Under the axis, at the right: inside the plot it could cover a side's end label.
      const cut = svg("text", { class: "stopped", x: left + width, y: up + height + 34, "text-anchor": "end" });
      cut.textContent = "stopped in hand " + last.hand;
      plot.appendChild(cut);
    }
    box.insertBefore(plot, box.firstChild);
    marksPlot = { now: now, x: x, count: count };
  }
  function marksAt(hand) {
    if (!marksPlot) return;
    // The band of the hand on the table: from the marks before it to the marks after it.
    const from = marksPlot.x(Math.max(0, Math.min(hand, marksPlot.count) - 1));
    marksPlot.now.setAttribute("x", from);
    marksPlot.now.setAttribute("width", marksPlot.x(Math.min(hand, marksPlot.count)) - from);
  }

  function render() {
    const step = steps[state.step];
    const at = places();
    renderSeats(step, at);
    renderTrick(step, at);
    renderSide(step);
    renderPosition(step);
    document.body.dataset.step = String(state.step + 1);  // as the page counts: from 1
    document.body.dataset.view = state.view;
  }

  function go(index) {
    state.step = Math.max(0, Math.min(steps.length - 1, index));
    render();
  }
  const completes = (s) => s.kind === "play" && s.trick && s.trick.length === 4;
  function find(from, direction, test) {
    for (let i = from; i >= 0 && i < steps.length; i += direction) if (test(steps[i], i)) return i;
    return direction > 0 ? steps.length - 1 : 0;
  }
  const moves = {
    next: () => go(state.step + 1),
    prev: () => go(state.step - 1),
    nextTrick: () => go(find(state.step + 1, 1, completes)),
    prevTrick: () => go(find(state.step - 1, -1, completes)),
    nextHand: () => go(find(state.step + 1, 1, (s) => s.kind === "deal" || s.kind === "end")),
    prevHand: () => go(find(state.step - 1, -1, (s) => s.kind === "deal")),
  };

  function autoplay(on) {
    if (state.timer) { clearInterval(state.timer); state.timer = null; }
    const button = document.getElementById("play");
    if (on) {
      const every = 700 * Number(document.getElementById("speed").value);
      state.timer = setInterval(() => {
        if (state.step >= steps.length - 1) autoplay(false); else moves.next();
      }, every);
    }
    button.textContent = on ? "⏸ pause" : "▶ play";
    button.setAttribute("aria-pressed", String(on));
  }

  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const view = params.get("view");
    if (view && match.perspectives.includes(view)) state.view = view;
    if (!params.has("step")) return;
    // 1-based, as the page counts; an old 0-based link's step=0 still opens the first step.
    const step = Number(params.get("step"));
    if (Number.isInteger(step)) state.step = Math.max(0, Math.min(steps.length - 1, step - 1));
  }

  function setup() {
    const verdict = "verified";
    const seed = match.seed === null ? "" : "seed " + match.seed + " · ";  // only with every hand
    document.getElementById("title").textContent = "Texas 42 — " + seed + match.end + " · " + verdict;
    const nav = document.getElementById("perspectives");
    const label = { all: "everything", public: "public" };
    for (const view of match.perspectives) {
      const button = el("button", { "data-view": view, "aria-pressed": "false" },
        label[view] || "seat " + view + "'s view");
      button.addEventListener("click", () => { state.view = view; render(); });
      nav.appendChild(button);
    }
    const slider = document.getElementById("slider");
    slider.max = String(steps.length - 1);
    slider.addEventListener("input", () => go(Number(slider.value)));
    const bind = { "prev-hand": moves.prevHand, "prev-trick": moves.prevTrick, prev: moves.prev,
      next: moves.next, "next-trick": moves.nextTrick, "next-hand": moves.nextHand };
    for (const [id, move] of Object.entries(bind)) document.getElementById(id).addEventListener("click", move);
    document.getElementById("play").addEventListener("click", () => autoplay(!state.timer));
    const speed = document.getElementById("speed");
    speed.addEventListener("change", () => {
      speed.blur();  // the arrows and space step the match again, not the list
      if (state.timer) autoplay(true);
    });
    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement &&
          event.target.type === "checkbox" && event.key === " ") return;  // space ticks the box
      if (event.key === "l" || event.key === "L") {
        if (event.altKey || event.ctrlKey || event.metaKey) return;
        event.preventDefault();
        showLabels(!document.body.classList.contains("labelled"), true);
        return;
      }
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const keys = { ArrowRight: moves.next, ArrowLeft: moves.prev, ArrowDown: moves.nextTrick,
        ArrowUp: moves.prevTrick, PageDown: moves.nextHand, PageUp: moves.prevHand,
        Home: () => go(0), End: () => go(steps.length - 1), " ": () => autoplay(!state.timer) };
      const key = keys[event.key];
      if (key) { event.preventDefault(); key(); }
    });
    window.addEventListener("hashchange", () => { fromHash(); render(); });
    const labels = document.getElementById("labels");
    labels.addEventListener("change", () => showLabels(labels.checked, true));
    showLabels(labelsOn(), false);
    listHands();
    drawMarks();
    const times = document.querySelector("#times tbody");
    for (const seat of SEATS) {
      const t = match.times[seat];
      const row = el("tr", { "data-seat": seat });
      [seat, match.names[seat] || "", t ? String(t.decisions) : "0", t ? t.mean_ms.toFixed(1) : "—",
        t ? t.p99_ms.toFixed(1) : "—", t ? t.max_ms.toFixed(1) : "—"].forEach((v) => row.appendChild(el("td", {}, v)));
      times.appendChild(row);
    }
    const facts = document.getElementById("facts");
    const add = (key, value) => { facts.appendChild(el("dt", {}, key)); facts.appendChild(el("dd", {}, value)); };
    add("result", match.end + " · A+C " + match.marks.AC + ", B+D " + match.marks.BD);
    if (match.seed !== null) add("seed", String(match.seed));
    for (const seat of SEATS) {
      facts.appendChild(el("dt", {}, "seat " + seat));
      const dd = el("dd", {});
      dd.appendChild(el("span", { class: "name" }, match.names[seat] || "(no name)"));
      dd.appendChild(document.createTextNode(" — "));
      dd.appendChild(el("code", { class: "command" }, match.commands[seat]));
      facts.appendChild(dd);
    }
    if (match.game_digest !== null) add("game digest", match.game_digest);  // only with every hand
    if (match.log_digest !== null) add("log digest", match.log_digest);
    add("verified", match.verified);
  }

  setup();
  fromHash();
  render();
  // From the start of navigation (reading and parsing the file included), and our script's share.
  document.body.dataset.firstRenderMs = performance.now().toFixed(1);
  document.body.dataset.scriptMs = (performance.now() - started).toFixed(1);
  document.body.dataset.ready = "true";
})();
