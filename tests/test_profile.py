"""The profile: defaults, every section read, and errors that name file:line."""

import pytest

from assistant.cli import main
from assistant.profile import DEFAULT_PROFILE, ProfileError, load_profile, parse_profile


def test_default_profile_round_trips(tmp_path):
    p = parse_profile(DEFAULT_PROFILE, "p.toml", base=tmp_path)
    assert p.scoring == "nmjl" and p.board_port == "sim"
    assert p.players == ("East", "South", "West", "North")
    assert p.display.host == "127.0.0.1" and p.display.token == ""
    assert p.speech.verbosity == "normal" and p.speech.wav_dir is None
    assert p.journal_dir == (tmp_path / "journal").resolve()


def test_init_writes_a_commented_profile_that_reads_back(tmp_path, capsys):
    target = tmp_path / "t.toml"
    assert main(["init", str(target)]) == 0
    text = target.read_text()
    assert text.count("\n#") > 10  # documented inline
    assert load_profile(target).camera.source == 0
    assert main(["init", str(target)]) == 2  # no silent overwrite
    assert "already exists" in capsys.readouterr().err


def test_values_are_read(tmp_path):
    text = """
[camera]
source = "game.mp4"
tile_set = "grandmas-set"
[game]
scoring = "mahjcon"
[seats]
east = "Ada"
north = ""
[speech]
rate = 200
verbosity = "quiet"
[display]
host = "0.0.0.0"
token = "s3cret-token"
"""
    p = parse_profile(text, "x.toml", base=tmp_path)
    assert p.camera.source == str((tmp_path / "game.mp4").resolve())
    assert p.scoring == "mahjcon" and p.speech.rate == 200 and p.speech.verbosity == "quiet"
    assert p.player(0) == "Ada" and p.seats_in_play == [0, 1, 2] and p.table_size == 3
    assert p.display.token == "s3cret-token" and p.camera.tile_set == "grandmas-set"


def test_the_profile_tile_set_is_the_model_watch_reads_with(tmp_path, monkeypatch):
    """An enrolled set named in the profile is loaded (its prototypes read the user's tiles); a name with no
    enrolled set behind it is a setup error naming the key."""
    import numpy as np

    from assistant.session import SetupError, open_model
    from models import MODELS_DIR
    from vision.tile_model import CLASSIFIER_FILE, Prototypes, classifier_id, sets_dir

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(SetupError, match="camera.tile_set: no set 'mine'"):
        open_model("mine")
    emb = np.eye(2, 128, dtype=np.float32)
    Prototypes(emb, ["J", "F"], classifier=classifier_id(MODELS_DIR / CLASSIFIER_FILE)).save(
        sets_dir() / "mine", {"name": "mine"})
    assert list(open_model("mine").prototypes.codes) == ["J", "F"]
    assert open_model("").prototypes is None


@pytest.mark.parametrize("text, where, words", [
    ("[speech]\nrate = 'fast'\n", "x.toml:2:", "whole number"),
    ("[camera]\nfps = 30\n\n[spech]\nrate = 1\n", "x.toml:4:", "unknown section"),
    ("[speech]\nvoice = 'en'\nverbosty = 'quiet'\n", "x.toml:3:", "unknown key"),
    ("[game]\nscoring = 'home'\n", "x.toml:2:", "nmjl, mahjcon"),
    ("[display]\nhost = '0.0.0.0'\n", "x.toml:2:", "token"),
    ("[speech]\nrate = 10\n", "x.toml:2:", "between"),
    ("[seats]\neast = 'a'\nsouth = ''\nwest = ''\n", "x.toml:1:", "three seats"),
    ("[seats]\nsouth = ''\n", "x.toml:1:", "leaves north empty"),
    ("[display]\nport = 8765\nport = 1\n", "x.toml:3:", ""),  # TOML syntax error: line and column
])
def test_bad_profiles_name_the_line(text, where, words):
    with pytest.raises(ProfileError) as err:
        parse_profile(text, "x.toml")
    assert str(err.value).startswith(where), str(err.value)
    assert words in str(err.value)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(ProfileError, match="nope.toml: cannot read"):
        load_profile(tmp_path / "nope.toml")
