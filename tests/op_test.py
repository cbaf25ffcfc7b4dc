"""An OpTest-style numeric gradient checker.

``check_grad(op_type, inputs, attrs, wrt=[...])`` builds a one-op Program through the public
API, projects the op's outputs onto a fixed random direction (loss = sum(Out * R), appended as
elementwise_mul + reduce_sum), asks ``gradients`` for the analytic gradients, runs everything
with the Executor, and compares with float64 central differences of the same program.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

import pyfluid
from pyfluid.framework import Program, program_guard
from pyfluid.framework.backward import gradients
from pyfluid.ops import get_op
from pyfluid.ops.registry import GRAD_SUFFIX

PROJECTION_SEED = 20261121


def _safe(slot: str) -> str:
    return slot.replace("@", "_").lower()


def _var_name(slot: str, index: int) -> str:
    return f"in_{_safe(slot)}_{index}"


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def default_outputs(op_type: str) -> list[str]:
    """Output slots whose gradient the op's grad rule reads (its ``<Out>@GRAD`` inputs)."""
    opdef = get_op(op_type)
    if opdef.grad_fn is not None:
        grad_def = get_op(opdef.grad_op_type)
        reads = [s.name[:-len(GRAD_SUFFIX)] for s in grad_def.inputs
                 if s.name.endswith(GRAD_SUFFIX)]
        if reads:
            return reads
    return [opdef.outputs[0].name]


class OneOpProgram:
    """A program holding one op, its projected loss, and the analytic gradients."""

    def __init__(self, op_type: str, inputs: dict, attrs: dict | None, wrt: Sequence[str],
                 outputs: Sequence[str] | None, no_grad_set: Sequence[str],
                 output_counts: dict[str, int] | None = None):
        self.opdef = get_op(op_type)
        self.program, startup = Program(), Program()
        self.feed: dict[str, np.ndarray] = {}
        self.slot_vars: dict[str, list] = {}
        rng = np.random.default_rng(PROJECTION_SEED)
        with program_guard(self.program, startup):
            block = self.program.global_block()
            for slot, value in inputs.items():
                self.slot_vars[slot] = []
                for i, array in enumerate(_as_list(value)):
                    array = np.asarray(array)
                    name = _var_name(slot, i)
                    var = block.create_var(name=name, shape=array.shape, dtype=array.dtype.name,
                                           stop_gradient=slot not in wrt)
                    self.feed[name] = array
                    self.slot_vars[slot].append(var)
            counts = dict(output_counts or {})
            out_vars = {s.name: [self._output_var(block, s.name, i)
                                 for i in range(counts.get(s.name, 1))]
                        for s in self.opdef.outputs}
            block.append_op(type=op_type, inputs=dict(self.slot_vars), outputs=out_vars,
                            attrs=dict(attrs or {}))
            terms = []
            for slot in outputs or default_outputs(op_type):
                for out in out_vars[slot]:
                    tag = _safe(out.name)
                    r_name = "projection_" + tag
                    block.create_var(name=r_name, shape=out.shape, dtype=out.dtype,
                                     stop_gradient=True)
                    self.feed[r_name] = rng.uniform(0.5, 1.5, size=out.shape).astype(
                        out.dtype.name_str)
                    weighted = block.create_var(name="weighted_" + tag)
                    block.append_op(type="elementwise_mul", inputs={"X": out, "Y": r_name},
                                    outputs={"Out": weighted})
                    term = block.create_var(name="term_" + tag)
                    block.append_op(type="reduce_sum", inputs={"X": weighted},
                                    outputs={"Out": term}, attrs={"reduce_all": True})
                    terms.append(term)
            if len(terms) > 1:
                self.loss = block.create_var(name="loss")
                block.append_op(type="sum", inputs={"X": terms}, outputs={"Out": self.loss})
            else:
                self.loss = terms[0]
            self.wrt_vars = [v for slot in wrt for v in self.slot_vars[slot]]
            no_grad = [v for slot in no_grad_set for v in self.slot_vars[slot]]
            self.grads = gradients([self.loss], self.wrt_vars, no_grad_set=no_grad or None)
        self.exe = pyfluid.static.Executor(pyfluid.CPUPlace())

    def _output_var(self, block, slot: str, index: int):
        """An output variable. Ops without shape inference (grad ops, py_func) get outputs
        shaped like the matching input: ``X`` for ``X@GRAD``, else the first input."""
        name = f"out_{_safe(slot)}_{index}"
        if self.opdef.infer_shape is not None:
            return block.create_var(name=name)
        like = self.slot_vars.get(slot[:-len(GRAD_SUFFIX)]) if slot.endswith(GRAD_SUFFIX) else None
        like = like[index] if like else next(iter(self.slot_vars.values()))[0]
        return block.create_var(name=name, shape=like.shape, dtype=like.dtype)

    def loss_value(self, feed: dict) -> float:
        (value,) = self.exe.run(self.program, feed=feed, fetch_list=[self.loss])
        return float(np.asarray(value, dtype=np.float64).sum())

    def analytic(self) -> list:
        present = [g for g in self.grads if g is not None]
        values = iter(self.exe.run(self.program, feed=self.feed, fetch_list=present))
        return [None if g is None else np.asarray(next(values)) for g in self.grads]

    def numeric(self, var, eps: float) -> np.ndarray:
        base = self.feed[var.name]
        grad = np.zeros(base.shape, dtype=np.float64)
        for index in np.ndindex(*base.shape):
            values = []
            for delta in (eps, -eps):
                moved = base.copy()
                moved[index] += delta
                values.append(self.loss_value({**self.feed, var.name: moved}))
            grad[index] = (values[0] - values[1]) / (2 * eps)
        return grad


def check_grad(op_type: str, inputs: dict[str, Any], attrs: dict | None = None,
               wrt: Sequence[str] = ("X",), no_grad_set: Sequence[str] = (),
               outputs: Sequence[str] | None = None, output_counts: dict[str, int] | None = None,
               eps: float = 1e-6, rtol: float = 1e-5, atol: float = 1e-8) -> None:
    """Check the analytic gradients of ``op_type`` w.r.t. the input slots ``wrt`` against
    central differences. Inputs are arrays (a list for duplicable slots); float inputs should
    be float64. Slots in ``no_grad_set`` must get no gradient at all. ``outputs`` picks the
    projected output slots; ``output_counts`` gives duplicable output slots their size."""
    case = OneOpProgram(op_type, inputs, attrs, list(wrt) + list(no_grad_set), outputs,
                        no_grad_set, output_counts)
    no_grad_vars = {v.name for slot in no_grad_set for v in case.slot_vars[slot]}
    for var, grad_var, value in zip(case.wrt_vars, case.grads, case.analytic()):
        if var.name in no_grad_vars:
            assert grad_var is None, (
                f"{op_type}: {var.name} is in no_grad_set but got the gradient {grad_var.name}")
            continue
        assert grad_var is not None, f"{op_type}: no gradient for input {var.name}"
        expected = case.numeric(var, eps)
        assert value.shape == expected.shape, (
            f"{op_type}: gradient of {var.name} has shape {value.shape}, expected {expected.shape}")
        np.testing.assert_allclose(value, expected, rtol=rtol, atol=atol,
                                   err_msg=f"{op_type}: d loss / d {var.name}")
