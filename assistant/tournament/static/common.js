// Shared by the tournament pages: the token (from ?token=, kept for this tab), JSON requests, and text escaping.
"use strict";
const params = new URLSearchParams(location.search);
let token = params.get("token") || sessionStorage.getItem("mahj-tournament-token") || "";
if (token) sessionStorage.setItem("mahj-tournament-token", token);
const $ = (id) => document.getElementById(id);

function withToken(url) {
  return token ? `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : url;
}

async function getJSON(url) {
  const res = await fetch(withToken(url), { cache: "no-store" });
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

async function postJSON(url, body) {
  const res = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
    "'": "&#39;" })[c]);
}

function describe(r) {
  if (!r) return "";
  const out = { mahjong: `Mah Jongg by ${r.winner}, ${r.value} (${r.self_picked ? "self-picked" : "discard by " +
    r.discarder}${r.jokerless ? ", jokerless" : ""})`, wall_game: "Wall game", time: "Not finished in time",
    last_survivor: `One intact hand: ${r.survivor}`, all_out: "Nobody left" }[r.outcome] || r.outcome;
  const extra = [];
  if (r.dead && r.dead.length) extra.push(`dead: ${r.dead.join(", ")}`);
  if (r.in_error && r.in_error.length) extra.push(`in error: ${r.in_error.join(", ")}`);
  if (r.penalties && r.penalties.length) extra.push(`penalties: ${r.penalties.map((p) => p.join(" ")).join(", ")}`);
  return extra.length ? `${out}; ${extra.join("; ")}` : out;
}
