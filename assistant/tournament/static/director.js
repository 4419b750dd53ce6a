// The director's page: table status, the dispute queue (decide with who and why), corrections, next round.
"use strict";
function say(text, ok) {
  $("message").className = `message ${ok ? "ok" : "bad"}`;
  $("message").textContent = text;
}

async function refresh() {
  let d;
  try {
    d = await getJSON("/api/director");
  } catch (e) {
    say(`Cannot load: ${e.message}`, false);
    return;
  }
  $("title").textContent = `${d.tournament}: director`;
  document.title = `${d.tournament}: director`;
  $("round").textContent = d.finished ? `Round ${d.round} of ${d.rounds}: the tournament is over` : `Round ${d.round} of ${d.rounds}`;
  $("tables").innerHTML = d.tables.map((t) => `<tr><td class="num">${t.table}</td><td>` +
    Object.entries(t.seats).map(([x, n]) => `${x} ${esc(n)}`).join(", ") + `</td><td>${t.games_counted.length} of ` +
    `${d.games_per_round}${t.complete ? " ✓" : ""}${t.open_disputes ? `, ${t.open_disputes} disputed` : ""}</td>` +
    `<td><a href="/table/${t.table}?director=1">Table ${t.table}</a></td></tr>`).join("");
  $("disputes").innerHTML = d.disputes.length ? d.disputes.map((x) => `<div class="dispute" data-id="${x.id}">
    <p><strong>Round ${x.round}, table ${x.table}, game ${x.game}</strong></p>
    <p>Counted: ${esc(describe(x.counted))}</p><p>Reported by ${esc(x.source)} at ${esc(x.sent_at.slice(11, 19))}:
    ${esc(describe(x.reported))}</p>
    <label class="field"><span>Your name</span><input type="text" id="who-${x.id}" autocomplete="name"></label>
    <label class="field"><span>Why</span><input type="text" id="why-${x.id}"></label>
    <button type="button" data-keep="true" data-id="${x.id}">Keep the counted result</button>
    <button type="button" data-keep="false" data-id="${x.id}">Count the new report</button></div>`).join("")
    : "<p>No open disputes.</p>";
  $("log").innerHTML = d.corrections.map((c) => `<tr><td>${esc(c.at.slice(11, 19))}</td><td>${esc(c.who)}</td>` +
    `<td>R${c.round} T${c.table_no} G${c.game}</td><td>${esc(c.why)}</td></tr>`).join("");
  window.__directorLoaded = (window.__directorLoaded || 0) + 1;
}

$("disputes").addEventListener("click", async (ev) => {
  const b = ev.target.closest("button[data-id]");
  if (!b) return;
  const id = b.dataset.id;
  try {
    await postJSON(`/api/disputes/${id}`, { keep: b.dataset.keep === "true", who: $(`who-${id}`).value,
      why: $(`why-${id}`).value });
    say(`Dispute ${id} decided.`, true);
  } catch (e) {
    say(`Not done: ${e.message}`, false);
  }
  refresh();
});

$("next-round").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    const out = await postJSON("/api/round", { force: $("force").checked, who: $("round-who").value });
    say(out.finished ? `Round ${out.closed} is closed: the tournament is over.` : `Round ${out.round} is seated.`, true);
  } catch (e) {
    say(`Not done: ${e.message}`, false);
  }
  refresh();
});

refresh();
setInterval(refresh, 15000);
