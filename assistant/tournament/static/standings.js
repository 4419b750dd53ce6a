// The public standings: large print, refreshed every 10 s.
"use strict";
async function refresh() {
  try {
    const s = await getJSON("/api/standings");
    $("title").textContent = `${s.tournament}: standings`;
    document.title = `${s.tournament}: standings`;
    $("round").textContent = s.finished ? `Final standings after ${s.rounds} rounds` : `Round ${s.round} of ${s.rounds}`;
    $("rows").innerHTML = s.standings.map((r) => `<tr><td class="num">${r.place}</td><td>${esc(r.name)}</td>` +
      `<td class="num">${r.points}</td><td class="num">${r.games}</td></tr>`).join("");
    $("error").textContent = "";
  } catch (e) {
    $("error").textContent = `Cannot load the standings: ${e.message}`;
  }
  window.__standingsLoaded = (window.__standingsLoaded || 0) + 1;
}
refresh();
setInterval(refresh, 10000);
