"""The tournament pages in real headless Chromium: a scorer reports a game from a phone-sized screen (390 px),
the director decides a dispute with who and why, the public standings show the result; axe-core finds no
serious problem on any page. Skips where Chromium or Playwright is missing (CI has both)."""

import json
import urllib.request

import pytest
from browser_kit import ARGS, ARTIFACTS, CHROMIUM, axe_violations, needs_chromium, sync_api
from tournament_kit import Server, new_tournament, wall

pytestmark = needs_chromium
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def event(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('browser') / 't.db'}"
    store, tokens = new_tournament(url, names=[f"Player {n}" for n in "ABCDEFGHIJK"])
    store.close()
    server = Server(url).start()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        ARTIFACTS.mkdir(exist_ok=True)
        yield server, tokens, browser
        browser.close()
    server.stop()


def page_at(browser, size=PHONE):
    page = browser.new_page(viewport=size)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def audit(page, name):
    bad = axe_violations(page, f"tournament-{name}-axe.json")
    assert not bad, bad
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "scrolls sideways"


def post(server, body, token):
    req = urllib.request.Request(server.base + "/api/reports", data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def test_scorer_reports_a_win_from_a_phone(event):
    server, tokens, browser = event
    page = page_at(browser)
    page.goto(f"{server.base}/table/1?token={tokens['1']}")
    page.wait_for_function("window.__scorerLoaded === true")
    assert page.inner_text("#title") == "Table 1"
    assert page.locator("#game").input_value() == "1"
    audit(page, "scorer")
    page.select_option("#winner", "C")
    page.check("#self-picked")
    assert not page.is_visible("#discarder")
    page.select_option("#line", "2468|2")
    page.check("#jokerless")
    page.check("[data-peek=B]")
    page.click("#send")
    page.wait_for_function("document.getElementById('message').textContent.includes('counted')")
    assert page.inner_text("#message") == "Game 1 counted: A 0, B -10, C 55, D 0."
    page.wait_for_function("document.getElementById('game').value === '2'")  # on to the next game
    assert "Mah Jongg by C, 25 (self-picked, jokerless)" in page.inner_text("#counted")
    page.screenshot(path=str(ARTIFACTS / "tournament-scorer.png"), full_page=True)
    # A hand typed as tiles is verified on the card: a wrong one is refused with the card's reason.
    page.check("input[name=handas][value=tiles]")
    page.fill("#concealed", "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B 9B")
    page.click("#send")
    page.wait_for_function("document.getElementById('message').textContent.startsWith('Not sent')")
    assert "not Mah Jongg on the card" in page.inner_text("#message")
    page.fill("#concealed", "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B 8B")
    page.select_option("#winner", "A")
    page.uncheck("#self-picked")
    page.select_option("#discarder", "D")
    page.click("#send")
    page.wait_for_function("document.getElementById('message').textContent.includes('counted:')")
    assert page.inner_text("#message") == "Game 2 counted: A 45, B 0, C 0, D 0."  # jokerless from the card
    assert not page.errors, page.errors


def test_stale_token_on_the_scorer_page(event):
    server, tokens, browser = event
    page = page_at(browser)
    page.goto(f"{server.base}/table/2?token=wrong-token")
    assert "not one of this tournament's" in page.inner_text("body")


def test_director_decides_a_dispute_and_the_standings_follow(event):
    server, tokens, browser = event
    post(server, wall(3, 1, client="phone"), tokens["3"])
    post(server, wall(3, 1, client="camera", dead=["A"], source="camera"), tokens["3"])
    page = page_at(browser, {"width": 1280, "height": 900})
    page.goto(f"{server.base}/director?token={tokens['director']}")
    page.wait_for_function("window.__directorLoaded >= 1")
    text = page.inner_text("#disputes")
    assert "Round 1, table 3, game 1" in text and "dead: A" in text
    audit(page, "director")
    page.fill("input[id^=who-]", "Judy (TD)")
    page.fill("input[id^=why-]", "A's rack was short a tile")
    page.click("button[data-keep=false]")
    page.wait_for_function("document.getElementById('message').textContent.includes('decided')")
    page.wait_for_function("document.getElementById('log').textContent.includes('Judy')")
    assert "A's rack was short a tile" in page.inner_text("#log")
    assert page.inner_text("#disputes") == "No open disputes."
    page.screenshot(path=str(ARTIFACTS / "tournament-director.png"), full_page=True)
    standings = page_at(browser)
    standings.goto(f"{server.base}/standings")
    standings.wait_for_function("window.__standingsLoaded >= 1")
    rows = standings.locator("#rows tr").all_inner_texts()
    assert len(rows) == 11 and rows[0].split("\t")[1] == "Player " + _seat_name(server, 1, "C")
    audit(standings, "standings")
    standings.screenshot(path=str(ARTIFACTS / "tournament-standings.png"), full_page=True)
    assert not page.errors and not standings.errors


def _seat_name(server, table, letter):
    with urllib.request.urlopen(f"{server.base}/api/table/{table}", timeout=10) as res:
        return json.loads(res.read())["seats"][letter].removeprefix("Player ")


def test_director_corrects_a_game_from_the_table_page(event):
    server, tokens, browser = event
    post(server, wall(2, 3, client="phone-2-3"), tokens["2"])
    page = page_at(browser)
    page.goto(f"{server.base}/director?token={tokens['director']}")
    page.wait_for_function("window.__directorLoaded >= 1")
    page.click("a[href='/table/2?director=1']")  # same tab: the director's token goes along
    page.wait_for_function("window.__scorerLoaded === true")
    assert page.is_visible("#director-part")
    page.select_option("#game", "3")
    page.check("input[name=outcome][value=time]")
    page.fill("#who", "Judy (TD)")
    page.fill("#why", "time was called before the wall ended")
    page.click("#send")
    page.wait_for_function("document.getElementById('message').textContent.includes('corrected')")
    assert page.inner_text("#message") == "Game 3 corrected."
    # the message comes before the page reloads its table: wait for the list, as a person would look
    page.wait_for_function("document.getElementById('counted').textContent.includes('Game 3: Not finished in time')")
    audit(page, "scorer-director")
    page.goto(f"{server.base}/director")
    page.wait_for_function("document.getElementById('log').textContent.includes('time was called')")
    assert not page.errors, page.errors
