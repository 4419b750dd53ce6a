"""A correction made on the display in a real browser goes through the pipeline to the referee and the journal,
and the page shows the corrected game."""

import threading

import pytest
from browser_kit import ARGS, CHROMIUM, needs_chromium, sync_api

pytest.importorskip("vision.events", reason="needs vision events (issue 7)")

from test_pipeline import ListJournal, game_observations, make  # noqa: E402

from assistant.display import DisplayServer  # noqa: E402


@needs_chromium
def test_fix_tile_from_the_display_is_ruled_and_journaled():
    a, _ = make(journal=ListJournal())
    server = DisplayServer(port=0, on_correction=a.request, initial=a.view.snapshot()).start()
    a.display = server
    stop = threading.Event()
    lock = threading.Lock()

    def pump():  # the pipeline thread: between frames it applies what people asked for
        while not stop.is_set():
            with lock:
                a.handle_requests()
            stop.wait(0.02)

    with lock:
        a.start_game(0.0)
        a.observe(game_observations()[:4])  # ... South discards Eight Bam
    worker = threading.Thread(target=pump, daemon=True)
    worker.start()
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.goto(server.url)
            page.wait_for_function("document.getElementById('discard-name').textContent === 'Eight Bam'")
            page.select_option("#fix-tile", "9B")
            page.click("#fix-form button")
            page.wait_for_function("document.getElementById('discard-name').textContent === 'Nine Bam'",
                                   timeout=5000)
            assert "received" in page.inner_text("#corr-result")
            browser.close()
    finally:
        stop.set()
        worker.join(2)
        server.stop()
    assert a.referee.seats[1].discards == ["9B"]
    fixes = [r for r in a.journal if r["kind"] == "event" and r["event"]["type"] == "correction"]
    assert fixes and fixes[0]["source"] == "display" and fixes[0]["event"]["event"]["tile"] == "9B"
