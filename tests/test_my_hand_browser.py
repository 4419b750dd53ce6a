"""A player's private page as she uses it (issue 44): Chromium in a 390 x 844 phone viewport, over HTTP from the
machine's LAN address, uploads a rack photo, hears it (the speech API is recorded), corrects a tile with two
taps, reads the advice and the Charleston pass; axe finds nothing at 7:1; another seat's page never shows her
hand; the display's panel shows one seat's code and replaces a link, after which the old page is refused.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from browser_kit import ARGS, ARTIFACTS, CHROMIUM, axe_violations, needs_chromium, sync_api

from assistant.display import DisplayServer, TableView
from assistant.display.seats import SeatPages
from assistant.tournament.address import lan_address
from engine.card import SAMPLE_CARD, load_card
from vision.tile_model import Detection, TileModel

pytestmark = needs_chromium
RACK = Path(__file__).parent / "fixtures" / "my_hand" / "rack.jpg"
TOKEN = "browser-seat-table-token"
PHONE = {"width": 390, "height": 844}
#: The Web Speech API, recorded: each utterance's text lands in window.__spoken.
SPEECH_STUB = """
window.__spoken = [];
window.SpeechSynthesisUtterance = class { constructor(text) { this.text = text; } };
Object.defineProperty(window, "speechSynthesis", { configurable: true,
  value: { speak: (u) => window.__spoken.push(u.text), cancel: () => {} } });
"""
HEARD = ("You hold 14 tiles: Three Bam, Three Bam, Four Bam, Five Bam, Two Crak, Two Crak, Two Crak, Seven Dot, "
         "Eight Dot, Nine Dot, North wind, Soap, two Jokers.")


@pytest.fixture(scope="module")
def table():
    view = TableView(("Ada", "Bob", "Cy", "Di"))
    card = load_card(SAMPLE_CARD)
    model = TileModel.load()
    pages = SeatPages(view.players, model=lambda: model, card=lambda: card)
    srv = DisplayServer(host="0.0.0.0", port=0, token=TOKEN, initial=view.snapshot(), seats=pages).start()
    host = lan_address()
    if host is None:
        srv.stop()
        pytest.skip("no non-loopback address on this machine to reach the display from")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        ARTIFACTS.mkdir(exist_ok=True)
        yield browser, srv, pages, host
        browser.close()
    srv.stop()


def phone(browser, url: str):
    """A fresh phone (its own cookies and storage) on ``url``, speech recorded; page errors are collected."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.add_init_script(SPEECH_STUB)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("document.querySelector('#pass option[value=first-right]') !== null")
    return page


def said(name: str) -> re.Pattern:
    """A button's accessible name as Chromium computes it from its text (it may put a space where hidden text
    meets visible text): the words, in order, and nothing else."""
    return re.compile("^" + r"\s*".join(re.escape(w) for w in name.replace(":", " :").split()) + "$")


def spoken(page) -> list[str]:
    return page.evaluate("window.__spoken")


def test_photo_heard_corrected_advised_and_private(table):
    browser, srv, pages, host = table
    assert pages.link(0).startswith(f"http://{host}:{srv.port}/seat/")
    her = phone(browser, pages.link(0))
    assert her.inner_text("h1") == "My hand: East (Ada)"
    assert her.get_attribute("#photo", "capture") == "environment"
    assert her.get_attribute("#photo", "accept") == "image/*"
    her.set_input_files("#photo", str(RACK))
    her.wait_for_function("window.__spoken.length > 0", timeout=20000)
    assert spoken(her)[0] == HEARD
    assert her.inner_text("#said") == HEARD and her.get_attribute("#said", "aria-live") == "polite"
    assert her.locator("#rack button").count() == 14
    for name in ("Tile 1: Soap", "Tile 2: Three Bam", "Tile 13: Joker"):   # what a screen reader says
        assert her.get_by_role("button", name=said(name)).count() == 1, name
    her.click("#order-sorted")
    assert spoken(her)[1] == ""   # her first touch unlocks the voice (iOS speaks only after a tap started it)
    assert her.locator("#rack li").first.get_by_role("button", name=said("Tile 2: Three Bam")).count() == 1
    her.click("#order-rack")

    # Two taps: the tile, then its kind.
    her.click("#rack button[data-i='1']")
    assert her.is_visible("#picker") and spoken(her)[-1].startswith("Tile 2: Three Bam.")
    her.click("#kinds button[data-kind='6B']")
    her.wait_for_function("window.__spoken.at(-1) === 'Tile 2 is Six Bam.'")
    assert her.is_hidden("#picker")
    assert her.get_by_role("button", name=said("Tile 2: Six Bam")).count() == 1
    assert [t["tile"] for t in pages.state(0)["tiles"]][:3] == ["WD", "6B", "3B"]

    her.click("#hear-suit")
    assert spoken(her)[-1] == ("Bams: Three, Four, Five, Six. Craks: Two, Two, Two. Dots: Seven, Eight, Nine. "
                               "Winds: North wind. Dragons: Soap. Jokers: 2.")
    her.click("#repeat")
    assert spoken(her)[-1] == spoken(her)[-2]

    advice = her.inner_text("#advice")
    assert "Nearest lines" in advice and "live" in advice and "You hold two Jokers" in advice
    assert "Not Mah Jongg" in her.inner_text("#verdict")
    her.select_option("#pass", "first-right")
    her.wait_for_function("document.querySelector('#pass-advice').textContent.includes('Pass:')")
    passed = her.inner_text("#pass-advice .pass-tiles")
    assert "Joker" not in passed and len(passed.removeprefix("Pass: ").split(", ")) == 3
    assert spoken(her)[-1].startswith("First pass, right:")
    her.click("#hear-advice")
    assert "Nearest:" in spoken(her)[-1]
    assert "The hand is over" not in her.inner_text("body")
    her.screenshot(path=str(ARTIFACTS / "my-hand-phone.png"), full_page=True)
    assert axe_violations(her, "axe-my-hand.json") == []
    her.click("#rack button[data-i='4']")
    assert axe_violations(her, "axe-my-hand-picker.json") == []
    her.click("#cancel")

    # Another seat's phone, from the same LAN address, sees nothing of hers; nor does the table's own page.
    other = phone(browser, pages.link(1))
    other.wait_for_function("document.querySelector('h1').textContent.includes('South')")
    assert other.locator("#rack li").count() == 0
    body = other.inner_text("body")
    assert "Six Bam" not in body and "Tile 1" not in body and "You hold" not in body
    assert other.evaluate("fetch('/api/state').then(r => r.status)") == 403
    assert other.evaluate(f"fetch('{re.sub(r'^http://[^/]+', '', pages.link(0))}api/state')"
                          ".then(r => r.json()).then(s => s.tiles.length)") == 14  # only with her link
    assert her.errors == [] and other.errors == []


class BlankSoapModel:
    """Reads any photo as Five Bam, a box face down that may be a blank Soap, and Six Bam, left to right."""

    soap_box = (60.0, 10.0, 100.0, 70.0)

    def detect(self, image, photo: bool = False) -> list[Detection]:
        return [Detection((10.0, 10.0, 50.0, 70.0), "up", "5B", 0.9, 0.99, ("5B",)),
                Detection(self.soap_box, "down", None, 0.8),
                Detection((110.0, 10.0, 150.0, 70.0), "up", "6B", 0.9, 0.99, ("6B",))]

    def kind_probability(self, image, boxes, code: str) -> np.ndarray:
        return np.array([0.3 if tuple(b) == self.soap_box else 0.0 for b in boxes])


def test_a_tile_that_may_be_a_blank_soap_is_asked_about_aloud_with_its_reason(table):
    browser, _srv, pages, _host = table
    real = pages._model  # noqa: SLF001 -- a model whose doubt is known, for this test only
    pages._model = BlankSoapModel()  # noqa: SLF001
    try:
        her = phone(browser, pages.link(2))
        her.set_input_files("#photo", str(RACK))
        her.wait_for_function("window.__spoken.length > 0", timeout=20000)
        first = spoken(her)[0]
        assert first.startswith("You hold 3 tiles: Five Bam, Six Bam, Soap. ")
        assert "Not sure of tile 2: Soap? It looks blank: a Soap, or a tile turned away." in first
        assert "seen from behind" not in first
        assert "Tile 2: it looks blank: a Soap, or a tile turned away. Is it Soap?" in her.inner_text("#doubts")
        her.get_by_role("button", name=said("Yes, Soap")).click()
        her.wait_for_function("window.__spoken.at(-1) === 'Tile 2 is Soap.'")
        assert her.inner_text("#doubts") == ""
        assert her.errors == []
    finally:
        pages._model = real  # noqa: SLF001


def test_a_large_photo_is_shrunk_in_the_phone_before_it_is_sent(table, tmp_path):
    import cv2

    browser, _, pages, _ = table
    big = tmp_path / "rack-big.jpg"
    cv2.imwrite(str(big), cv2.resize(cv2.imread(str(RACK)), (4000, 3000), interpolation=cv2.INTER_CUBIC))
    her = phone(browser, pages.link(1))
    her.set_input_files("#photo", str(big))
    her.wait_for_function("window.__spoken.length > 0", timeout=20000)
    assert pages.state(1)["photo_px"] == [2048, 1536]
    assert spoken(her)[0] == HEARD


def test_a_photo_that_is_not_one_is_said_on_her_page_only(table, tmp_path):
    browser, _, pages, _ = table
    her = phone(browser, pages.link(2))
    note = tmp_path / "shopping.txt"
    note.write_text("eggs, milk")
    her.set_input_files("#photo", str(note))
    her.wait_for_selector("#error:not([hidden])")
    assert "not an image" in her.inner_text("#error") and "Photograph button" in her.inner_text("#error")
    assert spoken(her)[-1] == her.inner_text("#error")
    other = phone(browser, pages.link(3))
    assert other.is_hidden("#error")


def test_the_display_shows_one_seat_code_and_a_new_link_stops_the_old_page(table):
    browser, srv, pages, _ = table
    old = pages.link(3)
    her = phone(browser, old)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    display = context.new_page()
    display.goto(srv.url)
    display.click("#links-show")
    display.wait_for_selector("#links button[data-qr='3']")
    assert display.locator("#link-qr svg").count() == 0           # no code shown until asked for
    display.click("#links button[data-qr='3']")
    assert display.get_attribute("#link-qr svg", "aria-label") == "QR code of North (Di)'s private page"
    assert display.inner_text("#link-qr .link-url") == old
    assert axe_violations(display, "axe-display-seat-links.json") == []
    display.click("#links button[data-new='3']")
    display.wait_for_function("document.querySelector('#links-result').textContent.includes('no longer works')")
    assert pages.link(3) != old
    assert her.evaluate("fetch('api/state').then(r => r.status)") == 404
    her.set_input_files("#photo", str(RACK))
    her.wait_for_selector("#error:not([hidden])")
    assert "scan your seat's QR code again" in her.inner_text("#error")


def test_the_page_says_when_the_hand_is_over(table):
    browser, srv, pages, _ = table
    her = phone(browser, pages.link(0))
    view = TableView(("Ada", "Bob", "Cy", "Di"))
    view.apply({"kind": "wall_game", "t": 0.0, "seat": None, "data": {}})
    srv.publish(view.snapshot())
    her.wait_for_function("document.querySelector('#problems').textContent.includes('The hand is over')",
                          timeout=10000)       # the page's next poll (every 4 s)
    assert her.is_visible("#check")


def test_a_new_deal_clears_her_page_says_so_and_takes_the_next_photo(table):
    browser, srv, pages, _ = table
    view = TableView(("Ada", "Bob", "Cy", "Di"))
    view.apply({"kind": "dealt", "t": 0.0, "seat": 0, "data": {"east": 0, "game": 1}})
    srv.publish(view.snapshot())
    her = phone(browser, pages.link(2))
    her.set_input_files("#photo", str(RACK))
    her.wait_for_function("window.__spoken.length > 0", timeout=20000)
    her.select_option("#pass", "first-right")
    her.wait_for_function("document.querySelector('#pass-advice').textContent.includes('Pass:')")
    her.click("#rack button[data-i='0']")            # a correction begun when the table deals
    assert her.is_visible("#picker") and her.is_hidden("#deal-note")
    view.apply({"kind": "wall_game", "t": 0.0, "seat": None, "data": {}})
    view.apply({"kind": "dealt", "t": 0.0, "seat": 1, "data": {"east": 1, "game": 2}})
    srv.publish(view.snapshot())
    her.wait_for_function("window.__spoken.at(-1).startsWith('A new hand was dealt')", timeout=10000)  # next poll
    note = her.inner_text("#deal-note")
    assert her.is_visible("#deal-note") and note.startswith("A new hand was dealt") and "Photograph" in note
    assert her.inner_text("#said") == spoken(her)[-1] == note     # the live region: screen readers hear it
    assert her.locator("#rack li").count() == 0 and her.is_hidden("#picker") and her.is_hidden("#check")
    assert her.inner_text("#pass-advice") == "" and her.input_value("#pass") == ""
    assert "No advice yet" in her.inner_text("#advice") and "Three Bam" not in her.inner_text("main")
    assert her.evaluate("document.activeElement.id") == "shoot"
    assert pages.state(2)["tiles"] == [] and axe_violations(her, "axe-my-hand-new-deal.json") == []
    her.set_input_files("#photo", str(RACK))               # ready for the next photo
    her.wait_for_function("window.__spoken.at(-1).startsWith('You hold')", timeout=20000)
    assert spoken(her)[-1] == HEARD and her.is_hidden("#deal-note") and her.locator("#rack li").count() == 14
    assert her.errors == []
