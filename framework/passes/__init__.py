"""Graph passes over a Program, applied by ``Executor.run`` before compiling a plan.

Each pass is one module with one function ``name(program, ctx) -> bool`` (True when it
changed the program) that rewrites the program it is given in place; ``apply_passes`` gives
them a clone, so the user's program never changes. Every pass preserves the results bit for
bit; see docs/design.md ("Graph passes").
"""
from __future__ import annotations

from typing import Callable

from ..program import Program
from ..verify import verify
from .channel_last import channel_last
from .conv_winograd import conv_winograd
from .dead_op_elimination import dead_op_elimination
from .fc_transposed import fc_transposed
from .fold_conv_bn import fold_conv_bn
from .fuse_conv import fuse_conv
from .fuse_elementwise_act import fuse_elementwise_act
from .fuse_fc import fuse_fc
from .graph import PassContext
from .pointwise_transposed import pointwise_transposed
from .schedule_optimizer_updates import schedule_optimizer_updates
from .strategy import PASS_NAMES, BuildStrategy

PASSES: dict[str, Callable[[Program, PassContext], bool]] = {
    "dead_op_elimination": dead_op_elimination,
    "schedule_optimizer_updates": schedule_optimizer_updates,
    "fold_conv_bn": fold_conv_bn,
    "fuse_conv": fuse_conv,
    "conv_winograd": conv_winograd,
    "channel_last": channel_last,
    "pointwise_transposed": pointwise_transposed,
    "fuse_fc": fuse_fc,
    "fc_transposed": fc_transposed,
    "fuse_elementwise_act": fuse_elementwise_act,
}
assert tuple(PASSES) == PASS_NAMES

DEFAULT_STRATEGY = BuildStrategy()   # read-only: what a plain Program runs with


def apply_passes(program: Program, strategy: BuildStrategy | None, feed_names=(),
                 fetch_names=()) -> Program:
    """The program the Executor compiles: a clone with the enabled passes applied, or
    ``program`` itself when no pass is enabled or none changed anything."""
    strategy = strategy or DEFAULT_STRATEGY
    names = strategy.enabled_passes()
    if not names:
        return program
    ctx = PassContext(tuple(feed_names), tuple(fetch_names))
    show, check = strategy.showing(), strategy.checking()
    work = program.clone()
    changed_any = False
    for name in names:
        before = str(work) if show else ""
        if PASSES[name](work, ctx):
            changed_any = True
            if show:
                print(f"--- pass {name}: before ---\n{before}\n--- pass {name}: after ---\n"
                      f"{work}", flush=True)
        if check:
            verify(work, f"graph pass '{name}'")
    return work if changed_any else program


__all__ = ["BuildStrategy", "PASSES", "PassContext", "apply_passes"]
