#!/usr/bin/env python3
"""Run PaddlePaddle's own unit tests against a runtime and compare two runs.

This harness measures how much of Paddle's test suite passes on pyfluid, using a
real PaddlePaddle install as the reference. It has no dependencies beyond the
standard library; the interpreters it drives need ``pytest``. The modules beside it:
``staging.py`` (exclusions, stubs, conftest, import rewriting), ``compare.py``,
``inventory.py``. README.md says where the measured test files come from (they are
Paddle's, so they are not part of this repository) and how the published numbers
(docs/compatibility.md) were made.

Run mode (one interpreter, one runtime)::

    python3 run_paddle_tests.py --python /path/venv/bin/python --src tests_dir \\
        --mode paddle  --out paddle.json
    python3 run_paddle_tests.py --python /path/pyfluid_venv/bin/python --src tests_dir \\
        --mode pyfluid --out pyfluid.json

Compare mode (no interpreter needed)::

    python3 run_paddle_tests.py --compare paddle.json pyfluid.json [--markdown]

What a run does, per test file (``test_*.py`` anywhere under ``--src``; files under
a ``_helpers`` folder are support modules, not tests):

1. copies the file, every helper in ``<src>/_helpers/`` and three generated stubs
   (``op_test.py``, ``eager_op_test.py``, ``op.py``; see STUB_* below) into a fresh
   work directory, rewriting only import statements:

   * ``--mode pyfluid``: ``import paddle`` -> ``import pyfluid as paddle``,
     ``import paddle.x.y as z`` -> ``import pyfluid.x.y as z``,
     ``import paddle.x.y`` -> ``import pyfluid.x.y, pyfluid as paddle``,
     ``from paddle[.x] import y`` -> ``from pyfluid[.x] import y``.
     Nothing else changes: ``paddle.base.core`` in the code body still resolves
     through the name ``paddle``, now bound to pyfluid.
   * ``--mode paddle``: files are used as they are, except that when the
     interpreter's Paddle has no ``paddle.fluid`` (Paddle >= 2.6 renamed it
     ``paddle.base``) the 2.5-era spelling is mapped: ``paddle.fluid`` ->
     ``paddle.base`` and ``from paddle import fluid`` -> ``from paddle import
     base as fluid`` (``--fluid-compat auto|on|off``).

2. writes a ``conftest.py`` that calls ``paddle.enable_static()`` for files on
   Paddle's ``tools/static_mode_white_list.py``, as Paddle's own
   ``tools/test_runner.py`` does before importing such a module (many of these files
   rely on it), then runs ``<python> -m pytest <file> -v --junitxml=...`` in that
   directory with a per-file timeout. Only ``unittest.TestCase`` classes are
   collected (module-level ``test_*`` functions are helpers in Paddle's tests,
   which Paddle runs with unittest). If pytest dies or times out, outcomes come from its verbose output
   and the remaining collected tests are recorded as errors.

3. applies EXCLUSIONS (tests that need a GPU/XPU, build raw C++ operators with
   ``Operator(...)``, or need resources a CPU runner lacks): those ids are recorded
   under ``excluded`` with their reason; tests marked ``run=False`` are not run.
   Tests that skip themselves when CUDA is not compiled simply come out skipped.

Output JSON (``--out``)::

    {
      "meta":     {"mode", "python", "runtime_version", "src", "started", ...},
      "results":  {file: {test_id: "passed"|"failed"|"error"|"skipped"}},
      "errors":   {file: {test_id: first line of the failure}},
      "files":    {file: {"status": "ok"|"collection_error"|"timeout"|"crash",
                          "message": first error line or "", "seconds": float}},
      "excluded": {file: {test_id: reason}}
    }

``test_id`` is ``Class::method``. A file whose import fails has no test ids of its
own; compare mode then charges every test the reference run passed in that file to
the file's ``message``.

Compare mode prints, per file: tests passing on the reference (excluded ones
dropped), how many of those pass on the candidate, and the rate; then the overall
rate and the failure causes ranked by count, each cause being the normalized first
error line (numbers, hex addresses and temp paths masked) with example test ids.

Inventory mode (static; resolves names, runs no test)::

    python3 run_paddle_tests.py --inventory PADDLE_PYTHON PYFLUID_PYTHON --src tests_dir

lists every ``paddle.*`` module/attribute the test sources reference that exists in the
reference Paddle but not in pyfluid, grouped by the first missing path component.

Optional: ``--dataset-dir DIR`` serves ``paddle.dataset.common.download`` from
``DIR/<module>/<file name in the URL>`` (through a generated ``conftest.py``), for
machines that cannot reach Paddle's dataset host (the MNIST book test).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import cmd_compare  # noqa: E402
from inventory import cmd_inventory, has_fluid  # noqa: E402
from staging import discover, match_exclusion, prepare_workdir  # noqa: E402


def _first_line(message: str | None) -> str:
    for line in (message or "").splitlines():
        line = line.strip()
        if line:
            return line[:500]
    return ""


def _short_id(nodeid: str) -> str:
    """``test_x.py::Class::test`` -> ``Class::test``."""
    parts = nodeid.split("::")
    return "::".join(parts[1:]) if len(parts) > 1 else nodeid


def _exception_line(text: str) -> str:
    """Pick the ``E   SomeError: ...`` line of a pytest traceback, else the last line."""
    e_lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    for ln in e_lines:
        if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt|Warning)\b|^[\w.]+: ", ln):
            return ln[:500]
    if e_lines:
        return e_lines[0][:500]
    return _first_line("\n".join(reversed([ln for ln in text.splitlines() if ln.strip()])))


def _parse_junit(path: Path):
    tests, errors = {}, {}
    file_error = ""
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        classname = case.get("classname", "")
        name = case.get("name", "")
        cls = classname.split(".")[-1] if classname else ""
        test_id = f"{cls}::{name}" if cls and "." in classname else name
        outcome = "passed"
        message = ""
        for child in case:
            if child.tag == "failure":
                outcome = "failed"
                message = _exception_line(child.text or "") or _first_line(child.get("message"))
            elif child.tag == "error":
                outcome = "error"
                message = _exception_line(child.text or "") or _first_line(child.get("message"))
            elif child.tag == "skipped":
                outcome, message = "skipped", child.get("message") or ""
        if not cls or "." not in classname:
            # a module that failed to import is reported as one case named after the file
            if outcome in ("error", "failed"):
                file_error = message or "collection error"
            continue
        tests[test_id] = outcome
        if outcome in ("failed", "error", "skipped"):
            errors[test_id] = _first_line(message)  # for skips: the reason
    return tests, errors, file_error


_VERBOSE_RE = re.compile(r"^(?P<node>\S+::\S+)\s+(?P<out>PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")


def _parse_verbose(stdout: str):
    tests = {}
    for line in stdout.splitlines():
        m = _VERBOSE_RE.match(line.strip())
        if m:
            out = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error", "SKIPPED": "skipped",
                   "XFAIL": "skipped", "XPASS": "passed"}[m["out"]]
            tests[_short_id(m["node"])] = out
    return tests


def _collect(python: str, target: Path, env: dict, timeout: float) -> tuple[list[str], str]:
    cmd = [python, "-m", "pytest", "-c", "pytest.ini", "-p", "no:cacheprovider",
           "--collect-only", "-q", target.name]
    try:
        proc = subprocess.run(cmd, cwd=target.parent, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return [], f"timeout after {timeout:.0f}s while collecting"
    ids = [_short_id(ln.strip()) for ln in proc.stdout.splitlines() if "::" in ln and not ln.startswith(" ")]
    msg = ""
    if not ids and proc.returncode not in (0, 5):
        msg = _exception_line(proc.stdout + "\n" + proc.stderr) or f"pytest exited {proc.returncode}"
    return ids, msg


def run_file(python: str, src: Path, rel: str, mode: str, fluid_compat: bool, timeout: float,
             workroot: Path, dataset_dir: str | None, keep: bool) -> dict:
    work = workroot / rel.replace("/", "__").removesuffix(".py")
    if work.exists():
        shutil.rmtree(work)
    target = prepare_workdir(work, src, rel, mode, fluid_compat, dataset_dir)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(work) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    env.setdefault("CUDA_VISIBLE_DEVICES", "")
    start = time.time()

    collected, collect_msg = _collect(python, target, env, min(timeout, 300))
    excluded, deselect = {}, []
    for tid in collected:
        hit = match_exclusion(rel, tid)
        if hit:
            excluded[tid] = hit[0]
            if not hit[1]:
                deselect += ["--deselect", f"{target.name}::{tid}"]

    junit = work / "_junit.xml"
    cmd = [python, "-m", "pytest", "-c", "pytest.ini", "-p", "no:cacheprovider", "-v",
           "--tb=short", "-rN", f"--junitxml={junit.name}", target.name] + deselect
    status, message = "ok", ""
    try:
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                              timeout=timeout)
        stdout, returncode = proc.stdout, proc.returncode
        stderr = proc.stderr
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        stderr = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        returncode = None
        status, message = "timeout", f"timeout: file did not finish within {timeout:.0f}s"

    tests, errors, file_error = {}, {}, ""
    if status == "ok" and junit.exists():
        tests, errors, file_error = _parse_junit(junit)
    else:
        tests = _parse_verbose(stdout)
        if status == "ok":
            status = "crash"
            message = f"pytest exited {returncode} without a report: " + (
                _exception_line(stdout + "\n" + stderr) or "no output")
        for tid in collected:
            if tid not in tests and tid not in excluded:
                tests[tid] = "error"
                errors[tid] = message
        for tid, out in tests.items():
            if out in ("failed", "error") and tid not in errors:
                errors[tid] = message
    if file_error or (not collected and collect_msg):
        status = "collection_error"
        message = file_error or collect_msg
    for tid in list(excluded):
        if tid not in tests:
            tests[tid] = "skipped"  # deselected: never run
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return {"status": status, "message": message, "seconds": round(time.time() - start, 1),
            "tests": tests, "errors": errors, "excluded": excluded}


def _runtime_version(python: str, mode: str) -> str:
    module = "pyfluid" if mode == "pyfluid" else "paddle"
    code = f"import {module}, sys; print(getattr({module}, '__version__', '?'), sys.version.split()[0])"
    try:
        proc = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300,
                              cwd=tempfile.gettempdir())
        return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()[-300:]
    except Exception as exc:  # noqa: BLE001 (reported, not raised)
        return f"unknown ({exc})"


def cmd_run(args) -> int:
    src = Path(args.src).resolve()
    files = discover(src)
    if args.files:
        wanted = set(args.files)
        files = [f for f in files if f in wanted or Path(f).name in wanted]
    if not files:
        print(f"no test_*.py files under {src}", file=sys.stderr)
        return 2
    fluid_compat = False
    if args.mode == "paddle":
        fluid_compat = {"on": True, "off": False}.get(args.fluid_compat)
        if fluid_compat is None:
            fluid_compat = not has_fluid(args.python)
    workroot = Path(args.workdir).resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="paddle_tests_"))
    workroot.mkdir(parents=True, exist_ok=True)
    meta = {
        "mode": args.mode, "python": args.python, "src": str(src),
        "runtime_version": _runtime_version(args.python, args.mode),
        "fluid_compat": fluid_compat, "timeout_per_file": args.timeout,
        "dataset_dir": args.dataset_dir,
        "started": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    report = {"meta": meta, "results": {}, "errors": {}, "files": {}, "excluded": {}}
    print(f"{args.mode}: {meta['runtime_version']} | {len(files)} files | work dir {workroot}",
          flush=True)

    def one(rel):
        return rel, run_file(args.python, src, rel, args.mode, fluid_compat, args.timeout,
                             workroot, args.dataset_dir, args.keep)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for rel, res in pool.map(one, files):
            counts = {}
            for out in res["tests"].values():
                counts[out] = counts.get(out, 0) + 1
            summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "no tests"
            extra = f" [{res['status']}: {res['message'][:120]}]" if res["status"] != "ok" else ""
            print(f"  {rel}: {summary} ({res['seconds']}s){extra}", flush=True)
            report["results"][rel] = dict(sorted(res["tests"].items()))
            report["errors"][rel] = dict(sorted(res["errors"].items()))
            report["excluded"][rel] = dict(sorted(res["excluded"].items()))
            report["files"][rel] = {"status": res["status"], "message": res["message"],
                                    "seconds": res["seconds"]}
    meta["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
    Path(args.out).write_text(json.dumps(report, indent=1, sort_keys=False) + "\n")
    if not args.workdir and not args.keep:
        shutil.rmtree(workroot, ignore_errors=True)
    print(f"wrote {args.out}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", help="interpreter to run the tests under (needs pytest)")
    ap.add_argument("--src", help="folder of Paddle test files (test_*.py, helpers in _helpers/)")
    ap.add_argument("--mode", choices=["paddle", "pyfluid"], help="runtime the tests import")
    ap.add_argument("--out", help="results JSON to write")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per test file (default 900)")
    ap.add_argument("--jobs", type=int, default=1, help="test files run in parallel (default 1)")
    ap.add_argument("--files", nargs="*", help="only these files (relative paths or base names)")
    ap.add_argument("--workdir", help="keep work directories here (default: a temp dir, removed)")
    ap.add_argument("--keep", action="store_true", help="keep per-file work directories")
    ap.add_argument("--fluid-compat", choices=["auto", "on", "off"], default="auto",
                    help="paddle mode: map paddle.fluid -> paddle.base (auto: when paddle.fluid is missing)")
    ap.add_argument("--dataset-dir", help="serve paddle.dataset downloads from DIR/<module>/<file>")
    ap.add_argument("--compare", nargs=2, metavar=("REF_JSON", "CAND_JSON"),
                    help="compare two result files instead of running")
    ap.add_argument("--inventory", nargs=2, metavar=("REF_PYTHON", "CAND_PYTHON"),
                    help="list paddle.* names the sources in --src use that exist on the reference "
                         "(paddle) but not on the candidate (pyfluid)")
    ap.add_argument("--markdown", action="store_true", help="compare: print Markdown")
    ap.add_argument("--top", type=int, default=0, help="compare: show only the N largest causes")
    ap.add_argument("--json-out", help="compare: also write the comparison as JSON")
    args = ap.parse_args(argv)
    if args.compare:
        return cmd_compare(args)
    if args.inventory:
        if not args.src:
            ap.error("--inventory needs --src")
        return cmd_inventory(args)
    missing = [f"--{k}" for k in ("python", "src", "mode", "out") if not getattr(args, k)]
    if missing:
        ap.error("run mode needs " + ", ".join(missing))
    return cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
