"""`mahj setup tiles` and the camera check on the table display, in real headless Chromium: each box of the mat
as a capture was read (empty, a tile, face down, two tiles over one box), what to fix, the report at the end, and
the camera warning of `mahj watch`; axe finds nothing serious and every colour pair is 7:1."""

from __future__ import annotations

import numpy as np
import pytest
from browser_kit import ARGS, ARTIFACTS, CHROMIUM, axe_violations, needs_chromium, sync_api

from assistant.display import DisplayServer, TableView
from assistant.display.setup_view import setup_snapshot
from assistant.setup_tiles import display_capture, display_report
from datasets.synth.faces import HOLDOUT_STYLE, back_image, face_image, style_for
from datasets.synth.mat_photo import Shot, lay_tiles, photograph
from vision.enroll import read_capture
from vision.mat import cells
from vision.tile_model import TileModel

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def capture():
    """Sheet 1 of the held-out style with 1 Bam missing, 6 Bam face down and a 9 Dot slipped half over 1 Crak."""
    style = style_for(HOLDOUT_STYLE)
    rng = np.random.default_rng(5)
    faces = {c.index: face_image(c.code, style, c.index) for c in cells(0)}
    del faces[0]
    faces[5] = back_image(style)
    img = photograph(lay_tiles(0, faces, rng, second={9: face_image("9D", style)}), Shot(tilt=15, turn=10), rng)
    return read_capture(TileModel.load(), img, "capture 1")


@pytest.fixture(scope="module")
def page():
    srv = DisplayServer(port=0, token="setup-test").start()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(srv.url)
        pg.wait_for_function("window.__mahjUpdates.length > 0")
        ARTIFACTS.mkdir(exist_ok=True)
        yield pg, srv
        browser.close()
    assert not errors, errors
    srv.stop()


def _show(pg, srv, snap):
    n = pg.evaluate("window.__mahjUpdates.length")
    srv.publish(snap | {"seq": 1000 + n})
    pg.wait_for_function(f"window.__mahjUpdates.length > {n}", timeout=5000)


def test_each_box_is_shown_as_read_with_what_to_fix_then_the_report(page, capture):
    pg, srv = page
    _show(pg, srv, setup_snapshot("grandmas", "capture 1 of 3", display_capture(capture)))
    assert pg.is_visible("#setup") and not pg.is_visible("#corrections")   # the set-up panel alone
    assert "Teaching mahj your tiles: capture 1 of 3" in pg.inner_text("#status")
    boxes = pg.eval_on_selector_all("#setup-sheets .cell", "cs => cs.map(c => [c.title, c.innerText])")
    shown = {title: text.replace("\n", " ") for title, text in boxes}
    states = {c.cell.name: c.state for c in capture.cells}
    assert len(shown) == 27 == len(states)
    assert shown["sheet 1, 1 Bam"] == "1 Bam empty" and shown["sheet 1, 6 Bam"] == "6 Bam face down"
    assert shown["sheet 1, 2 Bam"] == "2 Bam tile"
    assert [len(r) for r in pg.eval_on_selector_all(".mat-row", "rs => rs.map(r => r.children)")] == [9, 9, 9]
    for name, state in states.items():   # every box says what the reader said
        assert shown[name].endswith({"tile": "tile", "empty": "empty", "two tiles": "two tiles",
                                     "face down": "face down", "off centre": "off its box",
                                     "unclear": "unclear"}[state]), name
    fixes = pg.inner_text("#setup-problems")
    assert "sheet 1, 6 Bam: face down: turn the tile face up" in fixes
    assert pg.inner_text("#announce") == f"capture 1 of 3: {len(capture.problems())} things to fix"
    assert not axe_violations(pg)
    pg.screenshot(path=str(ARTIFACTS / "setup-capture.png"), full_page=True)
    for width in (320, 390):   # a phone held at the table: no sideways scroll
        pg.set_viewport_size({"width": width, "height": 800})
        assert pg.evaluate("document.documentElement.scrollWidth <= innerWidth"), width
    pg.set_viewport_size({"width": 1280, "height": 900})

    summary = {"tiles": 100, "captures": 3, "seconds": 4.2, "checked": True, "alike": [["2D", "8D"]],
               "kinds": {"1B": {"sure": "sure"}, "2D": {"sure": "fairly sure"}, "8D": {"sure": "unsure"}}}
    _show(pg, srv, setup_snapshot("grandmas", "done", display_capture(capture), display_report(summary)))
    report = pg.inner_text("#setup-report")
    assert "Learned: 100 tiles from 3 capture(s) in 4.2 s" in report
    assert "sure: 1 Bam" in report and "unsure: 8 Dot" in report
    assert "your 2 Dot and 8 Dot look alike" in report
    assert not axe_violations(pg)
    pg.screenshot(path=str(ARTIFACTS / "setup-report.png"), full_page=True)

    _show(pg, srv, setup_snapshot("grandmas", "nothing learned", error="nothing learned: every capture was doubted"))
    assert "every capture was doubted" in pg.inner_text("#setup-problems")
    assert "No capture yet." in pg.inner_text("#setup-sheets")


def test_the_camera_warning_stands_on_the_game_page(page):
    pg, srv = page
    view = TableView()
    view.camera_warnings(["camera check (5 frames over the first 3 s): tile size fails: tiles are 7 px wide"])
    _show(pg, srv, view.snapshot())
    assert not pg.is_visible("#setup") and pg.is_visible("#corrections")   # the game page again
    assert pg.get_attribute("#camera-warn", "role") == "alert"
    assert "tile size fails: tiles are 7 px wide" in pg.inner_text("#camera-warn")
    assert not axe_violations(pg)
    pg.screenshot(path=str(ARTIFACTS / "display-camera-warning.png"), full_page=True)
    _show(pg, srv, TableView().snapshot())
    assert not pg.is_visible("#camera-warn")
