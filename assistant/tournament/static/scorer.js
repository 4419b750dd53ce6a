// A table's score page: one form per finished game. A report keeps its client id until the server answers, so
// pressing Send again after a dropped connection can never count a game twice.
"use strict";
const table = Number(location.pathname.split("/").pop());
let view = null;
let pending = null; // {key, client_id}: the report in flight, resent with the same id
const director = params.get("director") === "1";

function options(sel, items) {
  sel.innerHTML = items.map(([v, t]) => `<option value="${esc(v)}">${esc(t)}</option>`).join("");
}

function seatItems() {
  return Object.entries(view.seats).map(([x, n]) => [x, `${x}: ${n}`]);
}

function outcome() {
  return document.querySelector("input[name=outcome]:checked").value;
}

function showParts() {
  const o = outcome();
  $("win").hidden = o !== "mahjong";
  $("survivor-part").hidden = o !== "last_survivor";
  $("discarder-row").hidden = $("self-picked").checked;
  const tiles = document.querySelector("input[name=handas]:checked").value === "tiles";
  $("tiles-part").hidden = !tiles;
  $("line-part").hidden = tiles;
  const g = Number($("game").value);
  const east = view.east[String(g)];
  $("east-text").textContent = east ? `East: ${east} (${view.seats[east]})` : "";
  $("dice-row").hidden = !!east;
}

async function load() {
  view = await getJSON(`/api/table/${table}`);
  $("title").textContent = `Table ${view.table}`;
  document.title = `Table ${view.table}: ${view.tournament}`;
  $("where").textContent = `${view.tournament}, round ${view.round} of ${view.rounds}${view.finished ? ": the tournament is over" : ""}`;
  $("seats").innerHTML = Object.entries(view.seats).map(([x, n]) => `<li>${x}: ${esc(n)}</li>`).join("");
  const counted = Object.entries(view.counted);
  $("counted").innerHTML = counted.length ? counted.map(([g, c]) =>
    `<li>Game ${g}: ${esc(describe(c.result))}</li>`).join("") : "<li>None yet</li>";
  const games = [];
  for (let g = 1; g <= view.games_per_round; g++) games.push([g, `Game ${g}${view.counted[g] ? " (counted)" : ""}`]);
  const keep = $("game").value;
  options($("game"), games);
  const next = games.find(([g]) => !view.counted[g]);
  $("game").value = keep || (next ? next[0] : 1);
  for (const id of ["winner", "discarder", "survivor", "dice"]) options($(id), seatItems());
  if ($("discarder").options.length > 1) $("discarder").selectedIndex = 1;
  options($("line"), view.lines.map((l) => [`${l.section}|${l.number}`, `${l.section} #${l.number} (${l.value}): ${l.text}`]));
  $("outs").innerHTML = Object.entries(view.seats).map(([x, n]) => `<p>${x} ${esc(n)}: ` +
    `<label><input type="checkbox" data-dead="${x}"> dead hand</label>` +
    `<label><input type="checkbox" data-error="${x}"> Mah Jongg in error</label>` +
    `<label><input type="checkbox" data-peek="${x}"> peeked at a blind pass</label></p>`).join("");
  $("director-part").hidden = !director;
  showParts();
  window.__scorerLoaded = true;
}

function checked(attr) {
  return [...document.querySelectorAll(`input[${attr}]:checked`)].map((e) => e.getAttribute(attr));
}

function report() {
  const o = outcome();
  const body = { round: view.round, table, game: Number($("game").value), outcome: o, source: director ? "director" : "scorer",
    dead: checked("data-dead"), in_error: checked("data-error"),
    penalties: checked("data-peek").map((x) => ({ seat: x, kind: "blind_pass_peek" })) };
  if ($("dice-row").hidden === false) body.east = $("dice").value;
  if (o === "mahjong") {
    body.winner = $("winner").value;
    body.self_picked = $("self-picked").checked;
    if (!body.self_picked) body.discarder = $("discarder").value;
    body.exposures = Number($("exposures").value);
    body.quint = $("quint").checked;
    body.misnamed = $("misnamed").checked;
    if (document.querySelector("input[name=handas]:checked").value === "tiles") {
      body.hand = { concealed: $("concealed").value, exposed: $("exposed").value.split(";").map((s) => s.trim()).filter(Boolean) };
    } else {
      const [section, number] = $("line").value.split("|");
      body.line = { section, number: Number(number) };
      body.jokerless = $("jokerless").checked;
    }
  }
  if (o === "last_survivor") body.survivor = $("survivor").value;
  return body;
}

$("report").addEventListener("change", showParts);
$("report").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const body = report();
  const key = JSON.stringify(body);
  if (!pending || pending.key !== key) pending = { key, client_id: crypto.randomUUID ? crypto.randomUUID() :
    `${Date.now()}-${Math.random()}` };
  body.client_id = pending.client_id;
  const msg = $("message");
  msg.className = "message";
  msg.textContent = "Sending…";
  try {
    let out;
    if (director) {
      out = await postJSON("/api/corrections", { ...body, who: $("who").value, why: $("why").value });
      msg.textContent = `Game ${out.game} corrected.`;
    } else {
      out = await postJSON("/api/reports", body);
      const pts = Object.entries(out.points || {}).map(([x, p]) => `${x} ${p}`).join(", ");
      msg.textContent = {
        counted: `Game ${out.game} counted: ${pts}.`, agrees: `Game ${out.game} was already counted the same way.`,
        duplicate: `Game ${out.game} had already arrived.`,
        disputed: `Game ${out.game} was counted differently before: the director will decide.` }[out.status];
    }
    msg.className = out.status === "disputed" ? "message bad" : "message ok";
    pending = null;
    $("game").value = ""; // on to the next game not yet counted
    await load();
  } catch (e) {
    msg.className = "message bad";
    msg.textContent = `Not sent: ${e.message}`;
  }
});
load().catch((e) => { $("message").className = "message bad"; $("message").textContent = `Cannot load: ${e.message}`; });
