"""``BuildStrategy``: which graph passes ``Executor.run`` applies (``static.BuildStrategy``)."""
from __future__ import annotations

import os

PASS_NAMES = ("dead_op_elimination", "schedule_optimizer_updates", "fold_conv_bn", "fuse_conv",
              "conv_winograd", "channel_last", "pointwise_transposed", "fuse_fc", "fc_transposed",
              "fuse_elementwise_act")
_NEED_HOISTING = ("fold_conv_bn", "conv_winograd", "pointwise_transposed", "fc_transposed")


class BuildStrategy:
    """Paddle's ``static.BuildStrategy``, reduced to what pyfluid does: one bool per graph pass
    (all on by default), ``enable_passes`` to turn them all off, and ``show_passes`` to print
    the program before and after each pass that changed it (also ``PYFLUID_SHOW_PASSES=1``).
    ``reuse_buffers`` lets ops write into the buffers of temporaries nothing reads later
    (executor/buffer_reuse.py), ``hoist_invariants`` computes values that depend on
    parameters alone (folded filters) once per parameter state (executor/hoisting.py); both
    are on when passes are enabled. ``debug_checks`` (or
    ``PYFLUID_CHECKS=1``) verifies the program after every pass and makes the plan check
    each op's outputs against the shapes and dtypes their variables declare.

    Pass it as ``static.CompiledProgram(program, build_strategy=strategy)``. Other Paddle
    options (``enable_inplace``, ``memory_optimize``, ...) may be set and are ignored."""

    def __init__(self) -> None:
        self.enable_passes = True
        self.show_passes = False
        self.dead_op_elimination = True
        self.schedule_optimizer_updates = True
        self.fold_conv_bn = True
        self.fuse_conv = True
        self.conv_winograd = True
        self.channel_last = True
        self.pointwise_transposed = True
        self.fuse_fc = True
        self.fc_transposed = True
        self.fuse_elementwise_act = True
        self.reuse_buffers = True
        self.hoist_invariants = True
        self.debug_checks = False

    @property
    def fuse_elewise_add_act_ops(self) -> bool:
        """Paddle's name for ``fuse_elementwise_act``."""
        return self.fuse_elementwise_act

    @fuse_elewise_add_act_ops.setter
    def fuse_elewise_add_act_ops(self, value: bool) -> None:
        self.fuse_elementwise_act = bool(value)

    def enabled_passes(self) -> tuple[str, ...]:
        """The passes to run; fold_conv_bn, conv_winograd, pointwise_transposed and
        fc_transposed need ``hoist_invariants`` (their parameter-only ops would otherwise run
        on every run)."""
        if not self.enable_passes:
            return ()
        return tuple(name for name in PASS_NAMES if getattr(self, name)
                     and (name not in _NEED_HOISTING or self.hoist_invariants))

    def reusing_buffers(self) -> bool:
        return bool(self.enable_passes and self.reuse_buffers)

    def hoisting(self) -> bool:
        return bool(self.enable_passes and self.hoist_invariants)

    def showing(self) -> bool:
        return bool(self.show_passes) or os.environ.get("PYFLUID_SHOW_PASSES", "") == "1"

    def checking(self) -> bool:
        return bool(self.debug_checks) or os.environ.get("PYFLUID_CHECKS", "") == "1"

    def _key(self) -> tuple:
        """What a compiled plan depends on (the Executor's cache key)."""
        return (self.enabled_passes(), self.showing(), self.reusing_buffers(), self.checking(),
                self.hoisting())

    def __repr__(self) -> str:
        return f"BuildStrategy(passes={list(self.enabled_passes())}, show={self.showing()})"
