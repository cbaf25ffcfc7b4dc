"""An OpTest-style numeric gradient checker.

``check_grad(op_type, inputs, attrs, wrt=[...])`` builds a one-op Program through the public
API, projects the op's outputs onto a fixed random direction (loss = sum(Out * R), appended as
elementwise_mul + reduce_sum), asks ``gradients`` for the analytic gradients, runs everything
with the Executor, and compares with float64 central differences of the same program.

Tensor arrays: an input given as ``ArrayInput([a, b])`` is an array written from fed tensors
(``write_to_array``), its gradient taken w.r.t. those tensors; ``array_outputs={"Out": n}``
makes an output an array whose first ``n`` elements (``read_from_array``) are projected.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

import pyfluid
from pyfluid.framework import Program, program_guard
from pyfluid.framework.backward import gradients
from pyfluid.ops import get_op
from pyfluid.ops.registry import GRAD_SUFFIX

PROJECTION_SEED = 20261121


class ArrayInput(NamedTuple):
    """A LOD_TENSOR_ARRAY input holding these (fed) tensors."""
    elements: list


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
                 output_counts: dict[str, int] | None = None,
                 array_outputs: dict[str, int] | None = None):
        self.opdef = get_op(op_type)
        self.program, startup = Program(), Program()
        self.feed: dict[str, np.ndarray] = {}
        self.slot_vars: dict[str, list] = {}
        rng = np.random.default_rng(PROJECTION_SEED)
        with program_guard(self.program, startup):
            block = self.program.global_block()
            op_inputs = {}
            for slot, value in inputs.items():
                self.slot_vars[slot] = []
                elements = value.elements if isinstance(value, ArrayInput) else _as_list(value)
                for i, array in enumerate(elements):
                    array = np.asarray(array)
                    name = _var_name(slot, i)
                    var = block.create_var(name=name, shape=array.shape, dtype=array.dtype.name,
                                           stop_gradient=slot not in wrt)
                    self.feed[name] = array
                    self.slot_vars[slot].append(var)
                op_inputs[slot] = (_write_array(block, f"in_{_safe(slot)}", self.slot_vars[slot])
                                   if isinstance(value, ArrayInput) else self.slot_vars[slot])
            counts = dict(output_counts or {})
            arrays = dict(array_outputs or {})
            out_vars = {s.name: [self._output_var(block, s.name, i, s.name in arrays)
                                 for i in range(counts.get(s.name, 1))]
                        for s in self.opdef.outputs}
            block.append_op(type=op_type, inputs=op_inputs, outputs=out_vars,
                            attrs=dict(attrs or {}))
            for slot, length in arrays.items():
                out_vars[slot] = [_read_array(block, out_vars[slot][0], k) for k in range(length)]
            terms = []
            projected = [out for slot in outputs or default_outputs(op_type)
                         for out in out_vars[slot]]
            shapes = self._run_shapes(projected)
            for out, shape in zip(projected, shapes):
                tag = _safe(out.name)
                r_name = "projection_" + tag
                block.create_var(name=r_name, shape=shape, dtype=out.dtype,
                                 stop_gradient=True)
                self.feed[r_name] = rng.uniform(0.5, 1.5, size=shape).astype(
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

    def _run_shapes(self, outs: list) -> list:
        """The outputs' shapes; those shape inference leaves unknown (-1) come from a run."""
        if all(d >= 0 for out in outs for d in out.shape):
            return [out.shape for out in outs]
        exe = pyfluid.static.Executor(pyfluid.CPUPlace())
        return [np.shape(v) for v in exe.run(self.program, feed=self.feed, fetch_list=outs)]

    def _output_var(self, block, slot: str, index: int, is_array: bool = False):
        """An output variable. Ops without shape inference (grad ops, py_func) get outputs
        shaped like the matching input: ``X`` for ``X@GRAD``, else the first input."""
        name = f"out_{_safe(slot)}_{index}"
        if is_array:
            from pyfluid.ops.types import VarType
            return block.create_var(name=name, type=VarType.LOD_TENSOR_ARRAY)
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
               eps: float = 1e-6, rtol: float = 1e-5, atol: float = 1e-8,
               array_outputs: dict[str, int] | None = None) -> None:
    """Check the analytic gradients of ``op_type`` w.r.t. the input slots ``wrt`` against
    central differences. Inputs are arrays (a list for duplicable slots); float inputs should
    be float64. Slots in ``no_grad_set`` must get no gradient at all. ``outputs`` picks the
    projected output slots; ``output_counts`` gives duplicable output slots their size."""
    case = OneOpProgram(op_type, inputs, attrs, list(wrt) + list(no_grad_set), outputs,
                        no_grad_set, output_counts, array_outputs)
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


def _index(block, k: int):
    var = block.create_var(name=f"index_{len(block.vars)}")
    block.append_op(type="fill_constant", outputs={"Out": var},
                    attrs={"shape": [1], "dtype": 3, "value": float(k)})
    return var


def _write_array(block, name: str, elements: list):
    """An array variable holding ``elements`` (one write_to_array each)."""
    from pyfluid.ops.types import VarType
    array = block.create_var(name=name, type=VarType.LOD_TENSOR_ARRAY, dtype=elements[0].dtype)
    for k, element in enumerate(elements):
        block.append_op(type="write_to_array", inputs={"X": element, "I": _index(block, k)},
                        outputs={"Out": array})
    return array


def _read_array(block, array, k: int):
    out = block.create_var(name=f"{array.name}_{k}")
    block.append_op(type="read_from_array", inputs={"X": array, "I": _index(block, k)},
                    outputs={"Out": out})
    return out
