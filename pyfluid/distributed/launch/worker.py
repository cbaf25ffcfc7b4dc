"""What ``mpiexec`` starts on each rank for the launcher: set Paddle's trainer variables,
send the output to ``<log_dir>/workerlog.<rank>`` (rank 0 also to the terminal), run the
script, and on an error report it with the rank's number and abort every rank."""
from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback


class Tee:
    """A text stream writing to two (rank 0: the terminal and its log)."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def write(self, text: str) -> int:
        self.first.write(text)
        self.second.write(text)
        if "\n" in text:
            self.flush()
        return len(text)

    def flush(self) -> None:
        self.first.flush()
        self.second.flush()

    def isatty(self) -> bool:
        return self.first.isatty()

    def __getattr__(self, name: str):
        return getattr(self.first, name)


def redirect_output(log_dir: str, rank: int) -> None:
    os.makedirs(log_dir, exist_ok=True)
    log = open(os.path.join(log_dir, f"workerlog.{rank}"), "a", buffering=1)
    if rank == 0:
        sys.stdout, sys.stderr = Tee(sys.stdout, log), Tee(sys.stderr, log)
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(log.fileno(), 1)            # native libraries' output too (MPI's messages)
    os.dup2(log.fileno(), 2)
    sys.stdout = sys.stderr = log


def abort_job(rank: int, size: int, details: str) -> None:
    from ..world import report_failure
    report_failure(rank, size, details)
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        mpi.COMM_WORLD.Abort(1)
    os._exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(prog="pyfluid.distributed.launch.worker")
    parser.add_argument("--log_dir", default="log")
    parser.add_argument("script")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    from ..world import env_rank_and_size
    rank, size = env_rank_and_size()
    os.environ.update(PADDLE_TRAINER_ID=str(rank), PADDLE_TRAINERS_NUM=str(size),
                      PADDLE_RANK_IN_NODE=os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK",
                                                         os.environ.get("MPI_LOCALRANKID", "0")))
    redirect_output(args.log_dir, rank)
    sys.argv = [args.script, *args.script_args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
    try:
        runpy.run_path(args.script, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            abort_job(rank, size, f"the script exited with status {exc.code!r}\n")
    except BaseException:       # noqa: B902  (KeyboardInterrupt too: the job must end)
        abort_job(rank, size, traceback.format_exc())
    sys.stdout.flush()
    sys.stderr.flush()


if __name__ == "__main__":
    main()
