"""Helpers of the ONNX export tests: build a one-op program, run it with pyfluid's Executor and
its ONNX export with onnxruntime, and compare."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from pyfluid.executor import Executor, global_scope  # noqa: E402
from pyfluid.framework import Program  # noqa: E402
from pyfluid.onnx import program_to_onnx  # noqa: E402
from pyfluid.ops import get_op  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def session(model) -> "ort.InferenceSession":
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def compare(expected: Sequence[np.ndarray], got: Sequence[np.ndarray], names: Sequence[str],
            rtol: float = RTOL, atol: float = ATOL) -> None:
    for name, want, have in zip(names, expected, got):
        want, have = np.asarray(want), np.asarray(have)
        assert have.shape == want.shape, f"{name}: onnxruntime shape {have.shape}, " \
                                         f"pyfluid {want.shape}"
        assert have.dtype == want.dtype, f"{name}: onnxruntime {have.dtype}, pyfluid {want.dtype}"
        np.testing.assert_allclose(have, want, rtol=rtol, atol=atol, err_msg=name)


def run_both(program: Program, feed: dict, fetch: Sequence[str], scope=None,
             opset: int = 17, rtol: float = RTOL, atol: float = ATOL):
    """Run ``program`` in pyfluid and its ONNX export in onnxruntime; assert equal outputs.
    Returns the ONNX model."""
    scope = scope or global_scope()
    expected = Executor().run(program, feed=feed, fetch_list=list(fetch), scope=scope)
    model = program_to_onnx(program, list(feed), list(fetch), scope=scope, opset_version=opset)
    got = session(model).run(None, feed)
    compare(expected, got, fetch, rtol, atol)
    return model


def one_op(op_type: str, inputs: dict[str, Any], attrs: dict | None = None,
           params: Sequence[str] = (), dynamic: bool = True,
           counts: dict[str, int] | None = None) -> tuple[Program, dict, list[str]]:
    """A program holding one ``op_type`` op. Each input slot gets one variable per array (a
    list for duplicable slots); slots in ``params`` become persistable variables in the global
    scope (ONNX initializers), the others feeds whose first dim is left unknown
    (``dynamic``). Returns (program, feed, names of every output variable)."""
    opdef = get_op(op_type)
    program = Program()
    block = program.global_block()
    feed, slots = {}, {}
    for slot, value in inputs.items():
        arrays = value if isinstance(value, list) else [value]
        slots[slot] = []
        for i, array in enumerate(arrays):
            array = np.asarray(array)
            name = f"{slot.lower()}_{i}"
            is_param = slot in params
            shape = list(array.shape)
            if dynamic and not is_param and shape:
                shape[0] = -1
            block.create_var(name=name, shape=shape, dtype=array.dtype.name,
                             persistable=is_param)
            if is_param:
                global_scope().var(name).get_tensor().set(array)
            else:
                feed[name] = array
            slots[slot].append(name)
    counts = counts or {}
    outputs = {}
    for slot in opdef.outputs:
        if slot.extra or slot.name == "XShape" and slot.dispensable:   # gradient-only
            continue
        outputs[slot.name] = [block.create_var(name=f"out_{slot.name.lower()}_{i}").name
                              for i in range(counts.get(slot.name, 1))]
    block.append_op(type=op_type, inputs=slots, outputs=outputs, attrs=dict(attrs or {}))
    return program, feed, [n for names in outputs.values() for n in names]


def check_op(op_type: str, inputs: dict, attrs: dict | None = None, *, fetch=None,
             params: Sequence[str] = (), dynamic: bool = True, counts=None, opset: int = 17,
             rtol: float = RTOL, atol: float = ATOL):
    program, feed, outputs = one_op(op_type, inputs, attrs, params, dynamic, counts)
    wanted = [o for o in outputs if fetch is None or any(o.startswith(f"out_{f.lower()}_")
                                                         for f in fetch)]
    return run_both(program, feed, wanted, opset=opset, rtol=rtol, atol=atol)




def random_feed(program: Program, feed_names: Sequence[str], batch: int,
                rng: np.random.Generator, int_high: int = 5) -> dict:
    """Inputs for ``feed_names`` with every unknown dim set to ``batch`` (floats N(0, 1),
    integers in [0, int_high))."""
    block = program.global_block()
    feed = {}
    for name in feed_names:
        var = block.var(name)
        shape = [batch if d < 0 else d for d in var.shape]
        dtype = np.dtype(var.dtype.name_str)
        feed[name] = (rng.normal(size=shape).astype(dtype) if dtype.kind == "f" else
                      rng.integers(0, int_high, size=shape).astype(dtype))
    return feed


def check_file_at_batches(path: str, program: Program, feed_names: Sequence[str],
                          fetch_vars: Sequence[Any], scope, batches=(1, 3), seed: int = 0,
                          rtol: float = RTOL, atol: float = ATOL) -> None:
    """One ONNX file must reproduce ``program``'s outputs at each batch size."""
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    names = [v if isinstance(v, str) else v.name for v in fetch_vars]
    program = program._prune_with_input(list(feed_names), names)
    for batch in batches:
        feed = random_feed(program, feed_names, batch, rng)
        expected = Executor().run(program, feed=feed, fetch_list=list(fetch_vars), scope=scope)
        compare(expected, sess.run(None, feed), [f"{n} (batch {batch})" for n in names],
                rtol, atol)


def load_unchecked(prefix: str):
    """(program, scope, feed names, fetch names) of a saved inference model, read without
    pyfluid's op checks: for models whose ops only the exporter knows yet."""
    import os
    from pyfluid.executor import Scope
    from pyfluid.framework.program import program_from_bytes
    from pyfluid.io.safe_read import read_file
    from pyfluid.io.variables import persistables, read_combined
    program = program_from_bytes(read_file(prefix + ".pdmodel"), prefix)
    scope = Scope()
    if os.path.exists(prefix + ".pdiparams"):
        values = read_combined(read_file(prefix + ".pdiparams"), persistables(program), prefix)
        for name, value in values.items():
            scope.var(name).get_tensor().set(value)

    def targets(kind: str) -> list[str]:
        ops = sorted((op for op in program.global_block().ops if op.type == kind),
                     key=lambda op: op.attr("col") or 0)
        return [(op.output("Out") if kind == "feed" else op.input("X"))[0] for op in ops]
    return program, scope, targets("feed"), targets("fetch")
