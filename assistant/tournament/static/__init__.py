"""The tournament pages (HTML, CSS, JavaScript), package data."""
