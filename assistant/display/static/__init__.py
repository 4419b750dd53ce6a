"""Static files of the table display (package data: index.html, display.css, display.js, tiles.js)."""
