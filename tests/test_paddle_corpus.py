"""Programs written for PaddlePaddle 2.6 (tests/paddle_corpus/p*.py) run on pyfluid with
``paddle`` aliased to it, and must print what real Paddle 2.6.2 printed (recorded once by
tests/paddle_corpus/record.py into expected/*.json; this test never needs Paddle).

Printed lines compare as text with the numbers set aside; integers must be equal, floats
within 1e-5 relative (1e-6 absolute near zero)."""
from __future__ import annotations

import contextlib
import io
import json
import math
import re
import runpy
from pathlib import Path

import pytest

import pyfluid
from paddle_alias import paddle_is_pyfluid

CORPUS = Path(__file__).resolve().parent / "paddle_corpus"
PROGRAMS = sorted(CORPUS.glob("p[0-9]*.py"))
RTOL, ATOL = 1e-5, 1e-6


_NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+|nan|inf)(?![\w.])")


def _split(line: str) -> tuple[str, list[str]]:
    """A printed line as its text with numbers blanked out, and its number tokens."""
    return _NUMBER.sub("#", line), _NUMBER.findall(line)


def _same(got: str, want: str) -> bool:
    """Same text; integers equal; floats within RTOL (ATOL near zero)."""
    (got_text, got_numbers), (want_text, want_numbers) = _split(got), _split(want)
    if got_text != want_text or len(got_numbers) != len(want_numbers):
        return False
    for g, w in zip(got_numbers, want_numbers):
        if _is_int(g) != _is_int(w):
            return False
        if _is_int(w) and int(g) != int(w):
            return False
        if not _is_int(w) and not _close(float(g), float(w)):
            return False
    return True


def _is_int(token: str) -> bool:
    return token.lstrip("-").isdigit()


def _close(got: float, want: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return math.isclose(got, want, rel_tol=RTOL, abs_tol=ATOL)


def run_program(program: Path, folder: Path, monkeypatch) -> list[str]:
    """Run one corpus program under pyfluid in ``folder``; its printed lines."""
    monkeypatch.chdir(folder)
    pyfluid.disable_static()            # Paddle starts in dynamic mode
    out = io.StringIO()
    with paddle_is_pyfluid(), contextlib.redirect_stdout(out):
        runpy.run_path(str(program), run_name="__main__")
    return out.getvalue().splitlines()


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_prints_what_paddle_printed(program, tmp_path, monkeypatch):
    expected = json.loads((CORPUS / "expected" / f"{program.stem}.json").read_text("utf-8"))
    got_lines = run_program(program, tmp_path, monkeypatch)
    want_lines = expected["stdout"]
    for number, (got, want) in enumerate(zip(got_lines, want_lines), 1):
        assert _same(got, want), \
            f"{program.name} line {number}:\n pyfluid: {got}\n paddle:  {want}"
    assert len(got_lines) == len(want_lines), \
        f"{program.name}: {len(got_lines)} lines printed, Paddle printed {len(want_lines)}"


def test_corpus_is_complete():
    assert len(PROGRAMS) >= 30
    recorded = {p.stem for p in (CORPUS / "expected").glob("*.json")}
    assert recorded == {p.stem for p in PROGRAMS}, "run tests/paddle_corpus/record.py"


def test_comparison_is_strict():
    assert _same("loss [1.0, 2e-3] fc_0.w_0 3", "loss [1.000001, 0.002] fc_0.w_0 3")
    assert not _same("loss [1.0]", "loss [1.001]") and not _same("fc_0.w_0", "fc_0.w_1")
    assert not _same("a [1.0, 2.0]", "a [1.0]") and not _same("a True", "a False")
    assert not _same("argmax [2]", "argmax [3]") and not _same("x [2]", "x [2.0]")
