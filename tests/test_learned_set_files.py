"""A learned set's files (``set.json``, ``prototypes.npz``) cut short or wrong are named with how to learn the set
again, never a traceback; a set is written whole or not at all, so a crash while learning leaves the old one."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant.cli import main
from models import MODELS_DIR
from vision.enroll import load_set, new_set_folder, restore_set
from vision.onnx_session import TileModelError
from vision.prototypes import PROTOTYPES_FILE, SET_FILE, Prototypes
from vision.tile_model import CLASSIFIER_FILE, TileModel, classifier_id, sets_dir


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    """A learned set 'mine' of two tiles, made with the shipped classifier."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    path = sets_dir() / "mine"
    Prototypes(np.eye(2, 128, dtype=np.float32), ["J", "F"], classifier=classifier_id(MODELS_DIR / CLASSIFIER_FILE)
               ).save(path, {"name": "mine"})
    return path


@pytest.mark.parametrize("file, spoil, said", [
    (SET_FILE, lambda b: b"[]", "a JSON list, not the set's description"),
    (SET_FILE, lambda b: b[: len(b) // 2], "cut short or not JSON"),
    (PROTOTYPES_FILE, lambda b: b[: len(b) // 2], "cut short or not a set's prototypes"),
    (PROTOTYPES_FILE, lambda b: b"", "cut short or not a set's prototypes"),
])
def test_a_set_file_cut_short_or_wrong_is_named_with_how_to_learn_it_again(folder, tmp_path, capsys, file, spoil,
                                                                          said):
    path = folder / file
    path.write_bytes(spoil(path.read_bytes()))
    with pytest.raises(TileModelError, match="learn it again with `mahj setup tiles --set mine"):
        load_set(folder)
    photo = tmp_path / "felt.png"
    import cv2
    cv2.imwrite(str(photo), np.full((64, 64, 3), 80, np.uint8))
    assert main(["detect", str(photo), "--set", "mine", "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error.startswith(f"{path}: {said}") and "--no-set" in error


def test_prototypes_that_do_not_match_their_codes_are_refused(folder):
    np.savez(folder / PROTOTYPES_FILE, embeddings=np.eye(3, 128, dtype=np.float32), codes=np.array(["J", "F"]))
    with pytest.raises(TileModelError, match=r"prototypes.npz: \(3, 128\) embeddings for 2 codes"):
        TileModel.load(folder)
    np.savez(folder / PROTOTYPES_FILE, embeddings=np.eye(2, 128, dtype=np.float32), codes=np.array(["J", "ZZ"]))
    with pytest.raises(TileModelError, match="codes that are no tile: ZZ"):
        TileModel.load(folder)


def test_a_crash_while_writing_leaves_the_set_learned_before_whole(folder, monkeypatch):
    before = {f.name: f.read_bytes() for f in folder.iterdir()}

    # a crash while the new set's files are written (here: in the prototypes): the old folder is untouched
    with pytest.raises(OSError, match="disk full"), new_set_folder(folder) as new:
        (new / "labels.tsv").write_text("crop\tcode\n")
        def savez(f, **arrays):
            f.write(b"PK\x03\x04 half a file")
            raise OSError("disk full")
        monkeypatch.setattr(np, "savez", savez)
        Prototypes(np.eye(2, 128, dtype=np.float32), ["N", "S"]).save(new, {"name": "mine"})
    assert {f.name: f.read_bytes() for f in folder.iterdir()} == before
    assert [p.name for p in folder.parent.iterdir()] == ["mine"]          # nothing half-made left beside it

    # the same crash when the prototypes are remade in place: each file is replaced whole or not at all
    with pytest.raises(OSError, match="disk full"):
        Prototypes(np.eye(2, 128, dtype=np.float32), ["N", "S"]).save(folder, {"name": "mine"})
    assert {f.name: f.read_bytes() for f in folder.iterdir()} == before
    monkeypatch.undo()
    assert list(load_set(folder).prototypes.codes) == ["J", "F"]

    # learned again: the new set takes the old one's place whole
    with new_set_folder(folder) as new:
        Prototypes(np.eye(2, 128, dtype=np.float32), ["N", "S"], classifier=classifier_id(
            MODELS_DIR / CLASSIFIER_FILE)).save(new, {"name": "mine"})
    assert list(load_set(folder).prototypes.codes) == ["N", "S"] and [p.name for p in folder.parent.iterdir()] == [
        "mine"]


def test_a_set_left_aside_between_the_two_renames_is_put_back(folder):
    aside = folder.with_name(".mine.old")
    folder.rename(aside)                                   # a crash just after the old set was renamed aside
    restore_set(folder)
    assert (folder / SET_FILE).exists() and not aside.exists()
    folder.rename(aside)
    assert list(load_set(folder).prototypes.codes) == ["J", "F"]     # loading puts it back too
