"""Record what real PaddlePaddle 2.6.2 prints for each corpus program.

Run with Paddle's interpreter (never a pyfluid dependency), from anywhere:

    /tmp/pd26/bin/python tests/paddle_corpus/record.py [program names...]

Each program runs in a fresh process inside an empty temporary folder (some save files);
its printed lines go to ``expected/<program>.json`` with the Paddle version."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parent


def record(program: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([sys.executable, str(program)], cwd=folder, capture_output=True,
                              text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{program.name} failed under Paddle:\n{done.stderr[-3000:]}")
    import paddle
    expected = {"paddle_version": paddle.__version__, "stdout": done.stdout.splitlines()}
    target = CORPUS / "expected" / f"{program.stem}.json"
    target.write_text(json.dumps(expected, indent=1) + "\n", encoding="utf-8")
    print(f"{program.stem}: {len(expected['stdout'])} lines")


def main(names: list[str]) -> None:
    programs = sorted(CORPUS.glob("p[0-9]*.py"))
    for program in programs:
        if not names or program.stem in names:
            record(program)


if __name__ == "__main__":
    main(sys.argv[1:])
