// The live table display: renders the whole snapshot from the server on every server-sent event, announces
// discards and window changes through an ARIA live region, and sends corrections (token required).
"use strict";
const params = new URLSearchParams(location.search);
let token = params.get("token") || sessionStorage.getItem("mahj-token") || "";
if (token) sessionStorage.setItem("mahj-token", token);
const $ = (id) => document.getElementById(id);
const ALL_TILES = [..."BCD"].flatMap((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${s}`))
  .concat(["N", "E", "W", "S", "RD", "GD", "WD", "F", "J"]);
window.__mahjUpdates = [];  // [{seq, published_ms, rendered_ms}]: read by tests and the benchmark

let textSize = +(localStorage.getItem("mahj-text-size") || 0);
function setTextSize(pct) {
  textSize = Math.max(75, Math.min(400, pct));
  document.documentElement.style.fontSize = `${textSize}%`;
  $("size-label").textContent = `${textSize}%`;
  localStorage.setItem("mahj-text-size", String(textSize));
}

let last = { seq: -1, announce: "", window: "" };
let answers = null;  // the server's answers to the Ask buttons, with each snapshot (assistant/display/answers.py)

// An answer is shown under the buttons and read out by the screen reader at once (the assertive live region).
function answer(text) {
  $("ask-result").textContent = text;
  $("announce").textContent = text;
}

function render(s) {
  $("status").textContent = s.status || "";
  answers = s.answers || null;
  const d = s.discard;
  $("discard-tile").innerHTML = d ? tileSVG(d.tile) : "";
  $("discard-name").textContent = d ? d.name : "No discard yet";
  $("discard-by").textContent = d ? `discarded by ${d.by}` + (d.named && d.named !== d.tile ? ` (called "${tileName(d.named)}")` : "") : "";
  const w = $("window");
  w.className = `window-state state-${s.window.state}`;
  w.textContent = s.window.words;
  $("turn").textContent = s.turn_name ? `${s.turn_name}'s turn` : "";
  const seats = $("seats");
  seats.innerHTML = "";
  for (const seat of s.seats) {
    if (!seat.in_play) continue;
    const li = document.createElement("li");
    const flags = (s.turn === seat.seat ? ` <span class="seat-turn">(turn)</span>` : "") +
      (seat.dead ? ` <span class="seat-dead">DEAD${seat.dead_reason ? ": " + esc(seat.dead_reason) : ""}</span>` : "");
    const exps = seat.exposures.map((e) => tileGroup(e, "exposure")).join("");
    li.innerHTML = `<span class="seat-name">${esc(seat.name)}</span> (${seat.wind})${flags}<div>${exps || "no exposures"}</div>`;
    seats.appendChild(li);
  }
  // The floor is counted per tile in card order: what a player scans for ("are all four Red Dragons out?").
  const n = s.floor_total || 0;
  $("floor-total").textContent = n ? `${n} tile${n === 1 ? "" : "s"} discarded` : "No discards yet.";
  $("floor").innerHTML = (s.floor || []).map((f) =>
    `<li>${tileSVG(f.tile)}<span class="floor-count">×${f.count}</span></li>`).join("");
  const mj = s.mahjong;
  // A verified hand is the news: its panel leads the page (CSS order) with the payments before the tiles.
  $("main").classList.toggle("finished", !!(mj && mj.ok));
  if (!mj) $("mahjong").innerHTML = "<p>No Mah Jongg yet.</p>";
  else if (mj.ok) {
    $("mahjong").innerHTML = `<p class="mahjong-ok">Verified: ${esc(mj.by)}, ${esc(mj.value)} points` +
      `${mj.jokerless ? ", jokerless" : ""}${mj.self_picked ? ", self-picked" : ""}</p>` +
      `<ul>${mj.lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>`;
  } else {
    $("mahjong").innerHTML = `<p class="mahjong-bad">Mah Jongg in error: ${esc(mj.by)}. ${esc(mj.reason || "")}</p>`;
  }
  $("mahjong-hand").innerHTML = mj ? handHTML(mj) : "";
  if (!s.payments) $("payments").innerHTML = "<p>None yet.</p>";
  if (s.payments) {
    const rows = Object.entries(s.payments).map(([who, amt]) =>
      `<tr><th scope="row">${esc(who)}</th><td>${amt < 0 ? "pays " + -amt : amt > 0 ? "receives " + amt : "0"}</td>` +
      `<td>${s.balances && who in s.balances ? s.balances[who] : ""}</td></tr>`).join("");
    $("payments").innerHTML = `<table><caption class="visually-hidden">Payments for this hand</caption>` +
      `<thead><tr><th scope="col">Player</th><th scope="col">This hand</th><th scope="col">Balance</th></tr></thead>` +
      `<tbody>${rows}</tbody></table>`;
  }
  const q = s.question;
  $("question").hidden = !q;
  $("question-text").textContent = q ? q.text : "";
  questionId = q ? q.id : null;
  $("pending").hidden = !s.pending;
  $("pending-text").textContent = s.pending || "";
  const help = $("help");
  help.hidden = !s.help;
  help.textContent = s.help ? `Please check: ${s.help}` : "";
  const cam = s.camera || [];
  $("camera-warn").hidden = !cam.length;
  $("camera-warn").innerHTML = cam.length ? `<p>Camera:</p><ul>${cam.map((c) => `<li>${esc(c)}</li>`).join("")}</ul>` : "";
  renderSetup(s.setup);
  $("log").innerHTML = s.log.map((l) => `<li>${esc(l)}</li>`).join("");
  if (s.seq !== last.seq && (s.announce !== last.announce || s.window.state !== last.window) && last.seq >= 0) {
    $("announce").textContent = s.announce;
  }
  last = { seq: s.seq, announce: s.announce, window: s.window.state };
  window.__mahjUpdates.push({ seq: s.seq, published_ms: s.published_ms, rendered_ms: Date.now() });
  if (window.__mahjUpdates.length > 500) window.__mahjUpdates.shift();
}

// `mahj setup tiles`: the set-up panel alone, each box of the mat as the last capture saw it (laid out as printed,
// a row of boxes a list), what to fix, and at the end how sure the learned set is. The step is announced.
let lastStep = "";
function renderSetup(su) {
  $("main").classList.toggle("setting-up", !!su);
  $("setup").hidden = !su;
  if (!su) return;
  $("setup-step").textContent = su.step;
  const cap = su.capture;
  $("setup-sheets").innerHTML = cap ? cap.sheets.map((sh) =>
    `<h3 id="sheet-${sh.sheet}">Sheet ${sh.sheet}</h3><div class="mat" role="group" aria-labelledby="sheet-${sh.sheet}">` +
    sh.rows.map((row) => `<ul class="mat-row">${row.map((c) =>
      `<li class="cell cell-${c.kind}" title="${esc(c.name)}"><span class="cell-label">${esc(c.label)}</span>` +
      ` <span class="cell-state">${esc(c.words)}</span></li>`).join("")}</ul>`).join("") + "</div>").join("")
    : "<p>No capture yet.</p>";
  const fix = cap ? cap.problems.concat(cap.doubts) : [];
  $("setup-problems").innerHTML = (su.error ? `<p class="setup-error">${esc(su.error)}</p>` : "") +
    (fix.length ? `<h3>To fix</h3><ul class="setup-fix">${fix.map((p) => `<li>${esc(p)}</li>`).join("")}</ul>` : "");
  const r = su.report;
  $("setup-report").innerHTML = !r ? "" : `<h3>Learned: ${r.tiles} tiles from ${r.captures} capture(s) in ${r.seconds} s</h3>` +
    (!r.checked ? "<p>How sure it is cannot be checked from one capture: add a second (turn the mat).</p>" :
      "<ul>" + Object.entries(r.sure).filter(([, k]) => k.length)
        .map(([level, kinds]) => `<li><strong>${esc(level)}:</strong> ${esc(kinds.join(", "))}</li>`).join("") + "</ul>") +
    (r.alike.length ? `<ul class="setup-fix">${r.alike.map((a) => `<li>${esc(a)}</li>`).join("")}</ul>` : "");
  const said = `${su.step}` + (fix.length ? `: ${fix.length} thing${fix.length === 1 ? "" : "s"} to fix` : "");
  if (said !== lastStep) $("announce").textContent = said;
  lastStep = said;
}

// A set of tiles as pictures, named as a whole for screen readers ("Green Dragon, Green Dragon, Joker").
function tileGroup(tiles, cls) {
  return `<span class="${cls}" role="group" aria-label="${esc(tiles.map((t) => t.name).join(", "))}">` +
    tiles.map((t) => tileSVG(t.tile)).join("") + "</span>";
}

// The hand laid face up at Mah Jongg, in its groups as it lies on the table, under a visible label.
function handHTML(mj) {
  const hand = mj.hand || [];
  if (!hand.length) return "";
  const n = hand.reduce((k, g) => k + g.length, 0);
  return `<p id="hand-label" class="hand-label">${mj.ok ? "Winning hand" : "Hand shown"}, ${n} tiles:</p>` +
    `<div id="hand" class="hand" role="group" aria-labelledby="hand-label">` +
    hand.map((g) => tileGroup(g, "hand-group")).join("") + "</div>";
}

async function sendCorrection(body) {
  if (!token) token = $("token").value.trim();
  const res = await fetch("/api/correction", {
    method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const answer = await res.json().catch(() => ({}));
  $("corr-result").textContent = res.ok ? (answer.message || "Done.") : `Not done: ${answer.error || res.status}`;
}

// Each seat's private page (issue 44): its link and QR code need the table token, and a seat's code is shown
// alone, on request, so that only its player scans it; "New link" replaces one someone else saw.
async function seatLinks(path, body) {
  if (!token) token = $("token").value.trim();
  const res = await fetch(path, body === undefined ? { headers: { Authorization: `Bearer ${token}` } } : {
    method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body) });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) {
    $("links-result").textContent = `Not shown: ${answer.error || res.status}`;
    return;
  }
  $("links-result").textContent = answer.message || "";
  $("link-qr").innerHTML = "";
  $("links").innerHTML = answer.seats.map((x) => `<li><span class="seat-name">${esc(x.label)}</span> ` +
    `<button type="button" data-qr="${x.seat}">Show code</button> <button type="button" data-new="${x.seat}">` +
    `New link</button></li>`).join("") + `<li><a href="/seats/print?token=${encodeURIComponent(token)}" ` +
    `target="_blank" rel="noopener">Print all four codes</a></li>`;
  $("links").dataset.seats = JSON.stringify(answer.seats);
}

function showSeatCode(seat) {
  const x = JSON.parse($("links").dataset.seats || "[]").find((s) => s.seat === seat);
  if (!x) return;
  $("link-qr").innerHTML = `<h3>${esc(x.label)}: scan with your phone</h3>${x.qr_svg}` +
    `<p class="link-url">${esc(x.url)}</p><button type="button" id="link-hide">Hide the code</button>`;
  $("link-hide").addEventListener("click", () => { $("link-qr").innerHTML = ""; });
}

// The open question (the camera's evidence would cost someone): answered with the token like any correction.
let questionId = null;

function setup() {
  $("answer-yes").addEventListener("click", () => sendCorrection({ action: "answer", id: questionId, confirmed: true }));
  $("pending-ok").addEventListener("click", () => sendCorrection({ action: "ok" }));
  $("pending-cancel").addEventListener("click", () => sendCorrection({ action: "cancel" }));
  $("answer-no").addEventListener("click", () => sendCorrection({ action: "answer", id: questionId, confirmed: false }));
  $("fix-tile").innerHTML = ALL_TILES.map((t) => `<option value="${t}">${tileName(t)}</option>`).join("");
  $("hand-tile").innerHTML = $("fix-tile").innerHTML;
  $("hand-as").innerHTML = $("fix-tile").innerHTML;
  $("hand-form").addEventListener("submit", (e) => {
    e.preventDefault();
    sendCorrection({ action: "fix_hand", tile: $("hand-tile").value, as: $("hand-as").value });
  });
  $("claim-seat").innerHTML = ["East", "South", "West", "North"].map((w, i) => `<option value="${i}">${w}</option>`).join("");
  const seatOptions = `<option value="">not known</option>` +
    ["East", "South", "West", "North"].map((w, i) => `<option value="${i}">${w}</option>`).join("");
  $("join-east").innerHTML = seatOptions;
  $("join-turn").innerHTML = seatOptions;
  $("join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const num = (v) => (v === "" ? null : Number(v));
    sendCorrection({ action: "join", east: num($("join-east").value), turn: num($("join-turn").value),
                     wall: num($("join-wall").value) });
  });
  $("token-row").hidden = !!token;
  $("fix-form").addEventListener("submit", (e) => { e.preventDefault(); sendCorrection({ action: "fix_tile", tile: $("fix-tile").value }); });
  $("claim-form").addEventListener("submit", (e) => {
    e.preventDefault();
    sendCorrection({ action: "claim", seat: +$("claim-seat").value, purpose: $("claim-purpose").value });
  });
  $("undo").addEventListener("click", () => sendCorrection({ action: "undo" }));
  $("links-show").addEventListener("click", () => seatLinks("/api/seats"));
  $("links").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (b && b.dataset.qr !== undefined) showSeatCode(+b.dataset.qr);
    if (b && b.dataset.new !== undefined) seatLinks("/api/seats/reissue", { seat: +b.dataset.new });
  });
  $("ask-tile").innerHTML = ALL_TILES.map((t) => `<option value="${t}">${tileName(t)}</option>`).join("");
  $("ask-repeat").addEventListener("click", () => answers && answer(answers.repeat));
  $("ask-turn").addEventListener("click", () => answers && answer(answers.turn));
  $("ask-winds").addEventListener("click", () => answers && answer(answers.winds));
  $("ask-out-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (answers) answer(answers.out[$("ask-tile").value]);
  });
  $("smaller").addEventListener("click", () => setTextSize(textSize - 25));
  $("larger").addEventListener("click", () => setTextSize(textSize + 25));
  fetch(`/api/state${token ? "?token=" + encodeURIComponent(token) : ""}`).then((r) => r.json()).then((s) => {
    if (!textSize) setTextSize(s.text_size || 150); else setTextSize(textSize);
    // Seat names for the claim list come from the server so players see their own names.
    if (s.seats) $("claim-seat").innerHTML = s.seats.filter((x) => x.in_play)
      .map((x) => `<option value="${x.seat}">${esc(x.name)} (${x.wind})</option>`).join("");
  }).catch(() => setTextSize(textSize || 150));
  const es = new EventSource(`/events${token ? "?token=" + encodeURIComponent(token) : ""}`);
  es.onmessage = (ev) => render(JSON.parse(ev.data));
  es.onerror = () => { $("status").textContent = "Connection lost: reconnecting…"; };
}
setup();
