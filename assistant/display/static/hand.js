// A player's private page (issue 44): photograph the rack, hear and correct the tiles, read the advice.
// Everything goes to this seat's own URL (/seat/TOKEN/...), relative to the page, so the token is never typed.
// Speech is the phone's own (Web Speech API), mirrored into a polite live region for VoiceOver and TalkBack;
// the "Phone speaks" button turns the phone's voice off for a player whose screen reader already speaks.
"use strict";
const $ = (id) => document.getElementById(id);
const MAX_SIDE = 2048;       // the photo is shrunk to this many pixels on its long side before it is sent
const SUITS = [["B", "Bams"], ["C", "Craks"], ["D", "Dots"]];
const HONOURS = [["Winds", ["N", "E", "W", "S"]], ["Dragons", ["RD", "GD", "WD"]], ["Flowers", ["F"]]];
const UNSURE = "mahj is not sure of it";   // the reason for a doubt that is the model's alone (assistant/rack_doubt.py)
let state = null;            // the server's answer for this seat (tiles, problems, advice)
let tiles = [];              // her tiles in rack order, as she corrected them: {tile, name, doubtful, alts, score}
let order = "rack";
let picking = null;          // index of the tile being corrected, or "add"
let lastSaid = "";
let speaking = true;

function say(text) {
  lastSaid = text;
  $("said").textContent = text;
  if (speaking && window.speechSynthesis && window.SpeechSynthesisUtterance) {
    window.speechSynthesis.cancel();
    const u = new SpeechSynthesisUtterance(text);
    u.lang = "en-US";
    window.speechSynthesis.speak(u);
  }
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

function count(n, word) {
  const words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight"];
  return `${words[n] || n} ${word}${n === 1 ? "" : "s"}`;
}

function sortedCodes() {
  return [...tiles].map((t) => t.tile).sort((a, b) => state.kinds.findIndex((k) => k.tile === a) -
    state.kinds.findIndex((k) => k.tile === b));
}

function handWords() {
  const codes = sortedCodes();
  const jokers = codes.filter((c) => c === "J").length;
  const names = codes.filter((c) => c !== "J").map(tileName);
  if (jokers) names.push(count(jokers, "Joker"));
  return names.join(", ");
}

function doubtWords() {
  // The reason is said where it tells her more than the doubt itself ("it stands among Dots", "it looks blank").
  return tiles.map((t, i) => [t, i]).filter(([t]) => t.doubtful).map(([t, i]) =>
    `Not sure of tile ${i + 1}: ${t.name}${t.alts.length ? ", or " + t.alts.map((a) => a.name).join(", or ") : ""}?` +
    (t.why && t.why !== UNSURE ? ` ${t.why.charAt(0).toUpperCase()}${t.why.slice(1)}.` : ""));
}

function hearAll() {
  if (!tiles.length) return say(state && state.notes.length ? state.notes.join(" ") : "No tiles yet. Take a photo of your rack.");
  const parts = [`You hold ${tiles.length} tiles: ${handWords()}.`];
  parts.push(...doubtWords(), ...state.problems, ...state.notes);
  say(parts.join(" "));
}

function hearBySuit() {
  if (!tiles.length) return hearAll();
  const codes = sortedCodes();
  const parts = [];
  for (const [s, word] of SUITS) {
    const n = codes.filter((c) => c.endsWith(s) && c.length === 2 && /\d/.test(c[0]));
    if (n.length) parts.push(`${word}: ${n.map((c) => tileName(c).split(" ")[0]).join(", ")}.`);
  }
  for (const [word, kinds] of HONOURS) {
    const n = codes.filter((c) => kinds.includes(c));
    if (n.length) parts.push(`${word}: ${n.map(tileName).join(", ")}.`);
  }
  const jokers = codes.filter((c) => c === "J").length;
  if (jokers) parts.push(`Jokers: ${jokers}.`);
  say(parts.join(" "));
}

function adviceWords() {
  const a = state && state.advice;
  if (!a) return state && state.doubts ? "First answer the questions about the tiles mahj is not sure of." :
    state && state.advice_pending ? "The advice is on its way." : "No advice yet: take a photo of your rack.";
  const parts = [];
  if (a.pass) parts.push(`${a.pass.words}: ${a.pass.reason}`);
  if (a.verdict) parts.push(a.verdict.mahjong ? `Mah Jongg! ${a.verdict.lines[0]}. ${a.verdict.value} points. Declare it as usual.`
    : `Not Mah Jongg${a.verdict.reason ? ": " + a.verdict.reason : ""}.`);
  parts.push(...a.notes);
  a.lines.slice(0, 3).forEach((l, i) => {
    const need = l.need.map((m) => `${m.count} ${m.name}, ${m.live} live${m.joker_ok ? "" : ", no Joker"}`).join("; ");
    parts.push(`${i === 0 ? "Nearest" : "Next"}: ${l.line}. ${l.missing} away${need ? ": needs " + need : ""}.`);
  });
  if (a.dead) parts.push(`${a.dead} lines are dead.`);
  return parts.join(" ");
}

function quietSVG(code) {
  // A tile picture inside a button that names it: hidden from screen readers, which hear the button's name.
  return tileSVG(code).replace('role="img"', 'aria-hidden="true"');
}

function renderTiles() {
  const shown = order === "rack" ? tiles.map((t, i) => [t, i]) :
    tiles.map((t, i) => [t, i]).sort((x, y) => sortedCodes().indexOf(x[0].tile) - sortedCodes().indexOf(y[0].tile));
  $("rack").innerHTML = shown.map(([t, i]) =>
    `<li class="${t.doubtful ? "doubtful" : ""}"><button type="button" data-i="${i}">${quietSVG(t.tile)}` +
    `<span class="tile-no"><span class="visually-hidden">Tile </span>${i + 1}<span class="visually-hidden">: ` +
    `${esc(t.name)}</span></span>${t.doubtful ? '<span class="doubt-mark">unsure</span>' : ""}</button></li>`).join("");
  $("order-rack").setAttribute("aria-pressed", String(order === "rack"));
  $("order-sorted").setAttribute("aria-pressed", String(order !== "rack"));
  const ex = state ? state.exposed : [];
  $("exposed").innerHTML = ex.length ? "Your exposures, as the camera sees them: " + ex.map((g) =>
    `<span class="exposure" role="img" aria-label="${esc(g.map((t) => t.name).join(", "))}">` +
    g.map((t) => quietSVG(t.tile)).join("") + "</span>").join("") : "";
}

function renderCheck() {
  const over = state && state.hand_over ? ["The hand is over on the table: the tiles here are cleared when the " +
    "next hand is dealt. Photograph your new rack once you hold it."] : [];
  const problems = state ? [...over, ...state.notes, ...state.problems] : [];
  const doubts = tiles.map((t, i) => [t, i]).filter(([t]) => t.doubtful);
  $("problems").innerHTML = problems.map((p) => `<li>${esc(p)}</li>`).join("");
  $("doubts").innerHTML = doubts.map(([t, i]) =>
    `<div class="doubt"><p>Tile ${i + 1}: ${esc(t.why || UNSURE)}. Is it ${esc(t.name)}?</p>` +
    '<p class="row">' +
    `<button type="button" data-yes="${i}">Yes, ${esc(t.name)}</button>` +
    t.alts.slice(0, 2).map((a) => `<button type="button" data-i="${i}" data-as="${a.tile}">${esc(a.name)}</button>`).join("") +
    `<button type="button" data-i="${i}">Another tile</button></p></div>`).join("");
  $("check").hidden = !problems.length && !doubts.length;
}

function renderAdvice() {
  const a = state && state.advice;
  $("pass-advice").innerHTML = !a || !a.pass ? "" : `<h3>${esc(a.pass.words)}</h3>` +
    `<p class="pass-tiles">Pass: ${esc(a.pass.tiles.join(", ") || "none of your own")}` +
    `${a.pass.blind ? ` and ${a.pass.blind} blind` : ""}</p><p>${esc(a.pass.reason)}</p>` +
    (a.pass.alternatives.length ? `<p>As good: ${a.pass.alternatives.map(esc).join("; ")}</p>` : "");
  if (!a) {
    $("verdict").innerHTML = "";
    $("advice").innerHTML = `<p>${esc(adviceWords())}</p>`;
    return;
  }
  const v = a.verdict;
  $("verdict").innerHTML = !v ? "" : v.mahjong ?
    `<p class="mj-yes">Mah Jongg: ${esc(v.lines[0] || "")}, ${v.value} points. Declare it as usual.</p>` :
    `<p class="mj-no">Not Mah Jongg yet${v.reason ? ": " + esc(v.reason) : ""}.</p>`;
  const line = (l) => `<div class="line"><p class="line-name">${esc(l.line)}</p>` +
    (l.dead ? `<p class="dead">Dead: ${esc(l.reason || "the tiles it needs are gone")}</p>` : "") +
    `<p>${l.missing} tile${l.missing === 1 ? "" : "s"} away, ${l.value} points.</p>` +
    (l.need.length ? `<ul>${l.need.map((m) => `<li>${m.count} &times; ${esc(m.name)}: ${m.live} live` +
      `${m.joker_ok ? " (a Joker may stand in)" : " (no Joker)"}</li>`).join("")}</ul>` : "") + "</div>";
  $("advice").innerHTML = a.notes.map((n) => `<p>${esc(n)}</p>`).join("") +
    (a.lines.length ? `<h3>Nearest lines</h3>${a.lines.map(line).join("")}` : "") +
    `<h3>Jokers</h3><p>You hold ${count(a.jokers, "Joker")}.</p>` +
    `<h3>Dead lines</h3><p>${a.dead ? `${a.dead} line${a.dead === 1 ? " is" : "s are"} dead (the tiles they need are gone).` : "None."}</p>` +
    a.dead_lines.map(line).join("");
}

function render() {
  if (!state) return;
  $("title").textContent = `My hand: ${state.label}`;
  const deal = state.cleared || (state.next_hand ? "These tiles are for the next hand: nothing on the table " +
    "counts against them until it is dealt." : "");
  $("deal-note").textContent = deal;
  $("deal-note").hidden = !deal;
  $("pass").value = state.pass || "";
  $("courtesy").value = state.courtesy === null ? "" : String(state.courtesy);
  $("courtesy").hidden = $("courtesy-label").hidden = state.pass !== "courtesy";
  renderTiles();
  renderCheck();
  renderAdvice();
}

function take(s) {
  // A new deal dropped her last hand (tiles, corrections, advice): the page lets go of it too, closes a
  // correction in progress, says so, and waits for the next photo. True if it did.
  const dropped = Boolean(state && s.cleared && s.deal !== state.deal);
  state = s;
  tiles = s.tiles.map((t) => ({ ...t }));
  if (dropped && picking !== null) {
    $("picker").hidden = true;
    picking = null;
    $("shoot").focus();
  }
  render();
  if (dropped) {
    showError("");
    say(s.cleared);
  }
  return dropped;
}

async function call(path, options) {
  const r = await fetch(path, options);
  const body = await r.json().catch(() => ({ error: `The table answered ${r.status}.` }));
  if (!r.ok) throw new Error(body.error || `The table answered ${r.status}.`);
  return body;
}

function picture(file) {
  // The photo as an <img>: every phone browser decodes its own camera's photos this way (HEIC on an iPhone too)
  // and turns them upright by their EXIF orientation when drawn.
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(file);
    const img = new Image();
    img.onload = () => { URL.revokeObjectURL(url); resolve(img); };
    img.onerror = () => { URL.revokeObjectURL(url); reject(new Error("not a picture")); };
    img.src = url;
  });
}

async function shrink(file) {
  // A phone photo is 12-50 MP; the tiles read as well from 2048 pixels, which send in a fraction of the time.
  let img;
  try {
    img = await picture(file);
  } catch (e) {
    return file;   // not a picture the browser knows: sent as it is, and the table says what it is
  }
  const k = Math.min(1, MAX_SIDE / Math.max(img.naturalWidth, img.naturalHeight));
  if (k === 1 && file.type === "image/jpeg") return file;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(img.naturalWidth * k);
  canvas.height = Math.round(img.naturalHeight * k);
  canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
  return await new Promise((resolve) => canvas.toBlob((b) => resolve(b || file), "image/jpeg", 0.9));
}

async function upload(file) {
  showError("");
  $("busy").textContent = "Reading your tiles…";
  try {
    const blob = await shrink(file);
    const read = await call("api/photo", { method: "POST", body: blob,
      headers: { "Content-Type": blob.type || "application/octet-stream" } });
    take(read);
    $("busy").textContent = "";
    hearAll();                      // her tiles first; the advice follows (the table works it out after)
    if (read.advice_pending) call("api/state").then((s) => { if (s.version === state.version) take(s); })
      .catch((e) => showError(e.message));
  } catch (e) {
    $("busy").textContent = "";
    showError(e.message);
    say(e.message);
  }
}

async function sendTiles(spoken) {
  try {
    const dropped = take(await call("api/tiles", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ tiles, deal: state.deal }) }));
    if (dropped) return;     // the hand she corrected was the last deal's: not applied, and that was said
    showError("");
    say(spoken);
  } catch (e) {
    showError(e.message);
  }
}

function openPicker(index) {
  picking = index;
  const t = index === "add" ? null : tiles[index];
  $("picker-h").textContent = t ? `Tile ${index + 1}, read as ${t.name}: what is it?` : "Which tile is missing?";
  $("remove").hidden = !t;
  $("picker").hidden = false;
  $("picker-h").focus();
  say(t ? `Tile ${index + 1}: ${t.name}${t.doubtful ? ", not sure" : ""}. To correct it, choose what it really is.` :
    "Choose the tile to add.");
}

function closePicker() {
  $("picker").hidden = true;
  const back = picking;
  picking = null;
  const btn = typeof back === "number" && document.querySelector(`#rack button[data-i="${back}"]`);
  (btn || $("add")).focus();
}

function pick(code) {
  const name = tileName(code);
  if (picking === "add") {
    tiles.push({ tile: code, name, doubtful: false, alts: [], score: 1 });
    closePicker();
    return sendTiles(`Added ${name}. You have ${tiles.length} tiles.`);
  }
  const i = picking;
  tiles[i] = { tile: code, name, doubtful: false, alts: [], score: 1 };
  closePicker();
  return sendTiles(`Tile ${i + 1} is ${name}.`);
}

function unlockSpeech() {
  // iOS Safari speaks only once speech has been started from a tap: an empty utterance on her first touch lets
  // the tiles be read aloud when the photo's answer arrives, which is no longer part of that tap.
  if (window.speechSynthesis && window.SpeechSynthesisUtterance) window.speechSynthesis.speak(new SpeechSynthesisUtterance(""));
}

function setup() {
  document.addEventListener("pointerdown", unlockSpeech, { once: true, capture: true });
  document.addEventListener("keydown", unlockSpeech, { once: true, capture: true });
  $("shoot").addEventListener("click", () => $("photo").click());
  $("photo").addEventListener("change", (e) => {
    const f = e.target.files && e.target.files[0];
    e.target.value = "";
    if (f) upload(f);
  });
  $("hear-all").addEventListener("click", hearAll);
  $("hear-suit").addEventListener("click", hearBySuit);
  $("hear-advice").addEventListener("click", () => say(adviceWords()));
  $("repeat").addEventListener("click", () => say(lastSaid || "Nothing said yet."));
  $("voice").addEventListener("click", () => {
    speaking = !speaking;
    $("voice").setAttribute("aria-pressed", String(speaking));
    if (!speaking && window.speechSynthesis) window.speechSynthesis.cancel();
  });
  $("order-rack").addEventListener("click", () => { order = "rack"; renderTiles(); });
  $("order-sorted").addEventListener("click", () => { order = "sorted"; renderTiles(); });
  $("rack").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-i]");
    if (b) openPicker(+b.dataset.i);
  });
  $("doubts").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    if (b.dataset.yes !== undefined) {
      const i = +b.dataset.yes;
      tiles[i] = { ...tiles[i], doubtful: false };
      return sendTiles(`Tile ${i + 1} is ${tiles[i].name}.`);
    }
    if (b.dataset.as) {
      picking = +b.dataset.i;
      return pick(b.dataset.as);
    }
    openPicker(+b.dataset.i);
  });
  $("add").addEventListener("click", () => openPicker("add"));
  $("cancel").addEventListener("click", closePicker);
  $("remove").addEventListener("click", () => {
    const i = picking;
    const name = tiles[i].name;
    tiles.splice(i, 1);
    closePicker();
    sendTiles(`Removed tile ${i + 1}, ${name}. You have ${tiles.length} tiles.`);
  });
  $("kinds").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-kind]");
    if (b) pick(b.dataset.kind);
  });
  document.addEventListener("keydown", (e) => {   // a hardware keyboard: a = all, s = by suit, r = repeat
    if (e.target.closest("input, textarea, select") || e.ctrlKey || e.metaKey || e.altKey) return;
    const act = { a: hearAll, s: hearBySuit, r: () => say(lastSaid || "Nothing said yet.") }[e.key];
    if (act) act();
  });
  const sendPass = () => call("api/pass", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ pass: $("pass").value || null,
      courtesy: $("courtesy").value === "" ? null : +$("courtesy").value }) })
    .then((s) => { take(s); if (s.advice && s.advice.pass) say(`${s.advice.pass.words}: ${s.advice.pass.reason}`); })
    .catch((e) => showError(e.message));
  $("pass").addEventListener("change", sendPass);
  $("courtesy").addEventListener("change", sendPass);
  call("api/state").then((s) => {
    $("pass").innerHTML = '<option value="">No pass now (the game)</option>' +
      s.passes.map((p) => `<option value="${p.pass}">${esc(p.words)}</option>`).join("");
    take(s);
    $("kinds").innerHTML = s.kinds.map((k) => `<button type="button" data-kind="${k.tile}">${quietSVG(k.tile)}` +
      `<span class="visually-hidden">${esc(k.name)}</span></button>`).join("");
  }).catch((e) => showError(e.message));
  setInterval(() => {   // the table moves on (discards, exposures): the advice follows; her own tiles stay hers
    if (document.hidden || !state) return;   // until a new deal, which drops them (take)
    call("api/state").then((s) => {
      if (picking !== null && s.deal === state.deal) return;   // a correction in progress: the advice waits
      if (s.seq !== state.seq || s.version !== state.version) take(s);
    }).catch(() => {});
  }, 4000);
}

setup();
