"""`cardcam` subcommands: --help everywhere, recognize --json output."""
import argparse
import json

import cv2
import numpy as np
import pytest

from cardcam import cli, synth

from .conftest import needs_decks


def parser():
    p = argparse.ArgumentParser(prog="tvtable")
    cli.add_parser(p.add_subparsers(dest="command"))
    return p


@pytest.mark.parametrize("argv", [["cardcam", "--help"], ["cardcam", "recognize", "--help"],
                                  ["cardcam", "calibrate", "--help"],
                                  ["cardcam", "build-model", "--help"]])
def test_help(argv, capsys):
    with pytest.raises(SystemExit) as e:
        parser().parse_args(argv)
    assert e.value.code == 0
    assert "usage" in capsys.readouterr().out


@needs_decks
def test_recognize_json(model, tmp_path, capsys):
    f = synth.hand_frame(np.random.default_rng(4), "anglo", 2, level="easy")
    img = tmp_path / "frame.jpg"
    cv2.imwrite(str(img), f.image)
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    rc = cli.main(["recognize", "--json", str(img), str(bad)])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rc == 1  # one image failed, the other was still read
    good, err = lines
    assert good["image"] == str(img) and isinstance(good["ms"], float)
    for c in good["cards"]:
        assert c["card"] in f.cards and 0 < c["confidence"] <= 1 and len(c["box"]) == 4
    assert good["shown"] is True
    assert err["image"] == str(bad) and "error" in err


def test_recognize_says_what_is_wrong_with_each_bad_file(model, tmp_path, capsys):
    cut_short = tmp_path / "cut.jpg"
    cv2.imwrite(str(cut_short), np.full((60, 80, 3), 128, np.uint8))
    cut_short.write_bytes(cut_short.read_bytes()[:40])
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    paths = [cut_short, empty, tmp_path / "missing.jpg", tmp_path]
    rc = cli.main(["recognize", "--json", *map(str, paths)])
    errors = [json.loads(x)["error"] for x in capsys.readouterr().out.splitlines()]
    assert rc == 1
    assert errors == ["not a readable image (corrupt, cut short, or not a JPEG/PNG)",
                      "empty file (0 bytes)", "no such file", "a folder, not an image file"]
    assert not [e for e in errors if "Errno" in e or "Traceback" in e]
