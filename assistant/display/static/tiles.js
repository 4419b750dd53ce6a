// Tile pictures drawn from the tile code alone (no artwork shipped): an ivory tile with a large number and a
// suit mark for suit tiles, a large letter for winds, dragons, flowers and jokers. Colours on the ivory face are
// all >= 7:1. Each picture is role="img" with the spoken name as its accessible name.
"use strict";
const TILE_NAMES = {
  N: "North wind", E: "East wind", W: "West wind", S: "South wind", RD: "Red Dragon", GD: "Green Dragon", WD: "Soap",
  F: "Flower", J: "Joker",
};
const SUIT = {
  B: { word: "Bam", colour: "#006400" }, C: { word: "Crak", colour: "#8b0000" }, D: { word: "Dot", colour: "#00008b" },
};
const NUMBER_WORDS = ["One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"];

function tileName(code) {
  if (TILE_NAMES[code]) return TILE_NAMES[code];
  const m = /^([1-9])([BCD])$/.exec(code || "");
  return m ? `${NUMBER_WORDS[+m[1] - 1]} ${SUIT[m[2]].word}` : String(code || "");
}

function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

function suitMark(suit, colour) {
  // A small drawn emblem under the number: bamboo sticks, a dot ring, or a crak seal.
  if (suit === "B") {
    return [26, 44, 62].map((x) => `<rect x="${x}" y="112" width="10" height="34" rx="4" fill="${colour}"/>`).join("");
  }
  if (suit === "D") {
    return `<circle cx="50" cy="128" r="17" fill="none" stroke="${colour}" stroke-width="7"/>` +
      `<circle cx="50" cy="128" r="5" fill="${colour}"/>`;
  }
  return `<rect x="32" y="110" width="36" height="36" rx="4" fill="none" stroke="${colour}" stroke-width="6"/>` +
    `<path d="M40 120 H60 M50 114 V142 M40 136 H60" stroke="${colour}" stroke-width="5"/>`;
}

function label(name) {
  // The word under a letter tile: "NORTH", "GREEN", "SOAP". "NORTH WIND" at this size is wider than the tile and
  // was clipped to "ORTH WIN"; the big letter and the accessible name already say what kind of tile it is.
  return name.replace(/ (Dragon|wind)$/, "").toUpperCase();
}

function tileSVG(code) {
  const name = tileName(code);
  const m = /^([1-9])([BCD])$/.exec(code || "");
  let body;
  if (m) {
    const s = SUIT[m[2]];
    body = `<text x="50" y="88" text-anchor="middle" font-size="84" font-weight="700" fill="${s.colour}">${m[1]}</text>` +
      suitMark(m[2], s.colour) +
      `<text x="50" y="172" text-anchor="middle" font-size="20" font-weight="700" fill="${s.colour}">${s.word.toUpperCase()}</text>`;
  } else {
    const look = {
      N: ["N", "#000"], E: ["E", "#000"], W: ["W", "#000"], S: ["S", "#000"], RD: ["R", "#8b0000"],
      GD: ["G", "#006400"], WD: ["0", "#00008b"], F: ["F", "#4b0082"], J: ["J", "#000"],
    }[code] || ["?", "#000"];
    const frame = code === "WD" ? `<rect x="18" y="26" width="64" height="94" rx="6" fill="none" stroke="#00008b" stroke-width="6"/>` : "";
    body = frame + `<text x="50" y="104" text-anchor="middle" font-size="80" font-weight="700" fill="${look[1]}">${look[0]}</text>` +
      `<text x="50" y="172" text-anchor="middle" font-size="20" font-weight="700" fill="${look[1]}">${esc(label(name))}</text>`;
  }
  return `<svg viewBox="0 0 100 190" role="img" aria-label="${esc(name)}" xmlns="http://www.w3.org/2000/svg">` +
    `<rect x="3" y="3" width="94" height="184" rx="10" fill="#fffff0" stroke="#fff" stroke-width="4"/>${body}</svg>`;
}
