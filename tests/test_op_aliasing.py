"""Every registered kernel against its aliasing declaration (``OpDef.aliasing``): run on small
sample inputs, an output may share memory with an input only where the op declares it
(``views_input``: the first input; ``may_alias``/py_func: any input; grad ops derived by
``def_grad``: the incoming gradients; ``def_inplace_kernel`` pairs: the paired input).
``fresh_outputs`` ops must return writable arrays of their own (buffer reuse overwrites
them), and in-place kernels must compute the pure kernel's result bit for bit.

Samples: the forward cases of tests/test_op_grads.py and tests/test_ops_forward.py, the
``EXTRA`` table below for ops those do not cover, and for each of them the grad ops its grad
rule or maker builds. ``test_every_registered_kernel_has_a_sample`` fails for an op added
without one: add a line to ``EXTRA``."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import test_op_grads
import test_ops_forward
from pyfluid.executor.interpreter import read, run_op
from pyfluid.framework import Program
from pyfluid.ops import comm, get_op, registered_ops
from pyfluid.ops.registry import EMPTY_VAR, GRAD_SUFFIX
from pyfluid.ops.types import VarType

_rng = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def one_rank_world():
    """The collective ops' samples run in a world of one process (no MPI)."""
    comm.set_communicator(0, comm.LocalCommunicator())
    yield
    comm.set_communicator(0, None)

FP32 = int(VarType.FP32)


def f32(*shape):
    return _rng.standard_normal(shape).astype("float32")


def pos32(*shape):
    return (np.abs(_rng.standard_normal(shape)) + 0.5).astype("float32")


def i64(*shape, high=5):
    return _rng.integers(1, high, shape).astype("int64")


class Sample(NamedTuple):
    op_type: str
    inputs: dict
    attrs: dict = {}
    output_counts: dict = {}


_ADAM = lambda: {"Param": f32(3, 2), "Grad": f32(3, 2), "LearningRate": pos32(1),  # noqa: E731
                 "Moment1": f32(3, 2), "Moment2": pos32(3, 2), "Beta1Pow": pos32(1) / 4,
                 "Beta2Pow": pos32(1) / 4}

EXTRA = [   # ops the grad and forward tables do not cover
    Sample("share_data", {"X": f32(2, 3)}),
    Sample("auc", {"Predict": np.array([[0.3, 0.7], [0.6, 0.4]], "float32"),
                   "Label": np.array([[1], [0]]), "StatPos": np.zeros(9, "int64"),
                   "StatNeg": np.zeros(9, "int64")}, {"num_thresholds": 3}),
    Sample("unique_consecutive", {"X": np.array([1.0, 1.0, 2.0], "float32")},
           {"return_inverse": True, "return_counts": True, "dtype": 3}),
    Sample("where_index", {"Condition": np.array([[True, False], [False, True]])}),
    Sample("barrier", {"X": f32(2)}),
    Sample("c_allgather", {"X": f32(2, 3)}, {"nranks": 1}),
    Sample("c_allreduce_max", {"X": f32(2, 3)}),
    Sample("c_allreduce_min", {"X": f32(2, 3)}),
    Sample("c_allreduce_prod", {"X": f32(2, 3)}),
    Sample("c_allreduce_sum", {"X": f32(2, 3)}),
    Sample("c_allreduce_sum", {"X": f32(2, 3), "Cond": np.array([False])}),
    Sample("c_allreduce_start", {"X": [f32(2, 3), f32(4)]}),
    Sample("c_allreduce_wait", {"X": comm.Done([f32(2, 3), f32(4)])},
           output_counts={"Out": 2}),
    Sample("c_broadcast", {"X": f32(2, 3)}),
    Sample("c_comm_init", {"X": np.zeros(0, "uint8")}, {"nranks": 1}),
    Sample("c_gen_nccl_id", {}),
    Sample("c_sync_calc_stream", {"X": f32(2, 3)}),
    Sample("c_sync_comm_stream", {"X": [f32(2, 3), f32(4)]}, output_counts={"Out": 2}),
    Sample("coalesce_tensor", {"Input": [f32(2, 3), f32(4)]}, {"copy_data": True},
           output_counts={"Output": 2}),
    Sample("depend", {"X": f32(2, 3), "Dep": [f32(1)]}),
    Sample("accuracy", {"Out": pos32(4, 2), "Indices": i64(4, 2), "Label": i64(4, 1)}),
    Sample("adam", _ADAM()),
    Sample("adamw", _ADAM(), {"with_decay": True, "coeff": 0.1}),
    Sample("arg_max", {"X": f32(3, 4)}, {"axis": 1}),
    Sample("arg_min", {"X": f32(3, 4)}, {"flatten": True}),
    Sample("assign_value", {}, {"shape": [2], "dtype": FP32, "fp32_values": [1.0, 2.0]}),
    Sample("elementwise_floordiv", {"X": i64(2, 3, high=20), "Y": i64(2, 3)}),
    Sample("elementwise_mod", {"X": i64(2, 3, high=20), "Y": i64(3)}),
    Sample("equal", {"X": i64(2, 3), "Y": i64(2, 3)}),
    Sample("not_equal", {"X": i64(2, 3), "Y": i64(3)}),
    Sample("greater_equal", {"X": f32(2, 3), "Y": f32(2, 3)}),
    Sample("greater_than", {"X": f32(2, 3), "Y": f32(3)}),
    Sample("less_equal", {"X": f32(2, 3), "Y": f32(2, 3)}),
    Sample("less_than", {"X": f32(2, 3), "Y": f32(3)}),
    Sample("fc", {"Input": f32(2, 3), "W": f32(3, 4), "Bias": f32(4)}),
    Sample("fc", {"Input": f32(2, 3, 2), "W": f32(6, 4)},
           {"in_num_col_dims": 1, "activation_type": "relu"}),
    Sample("fc_weight_transpose", {"W": f32(3, 4)}),
    Sample("fc_transposed", {"Input": f32(2, 3), "WT": f32(4, 3), "Bias": f32(4)}),
    Sample("fc_transposed", {"Input": f32(2, 3, 2), "WT": f32(4, 6)},
           {"in_num_col_dims": 1, "activation_type": "relu"}),
    Sample("fill_any_like", {"X": f32(2, 3)}, {"value": 1.5}),
    Sample("fill_constant", {}, {"shape": [2, 3], "value": 2.0}),
    Sample("fill_constant", {"ShapeTensor": np.array([3, 1], "int64")}, {"value": 1.0}),
    Sample("fused_conv2d", {"Input": f32(1, 2, 4, 4), "Filter": f32(3, 2, 3, 3), "Bias": f32(3),
                            "ResidualData": f32(1, 3, 2, 2)}, {"fuse_activation": "relu"}),
    Sample("fused_conv2d_winograd", {"Input": f32(1, 2, 5, 5), "Filter": f32(3, 2, 3, 3),
                                     "Transformed": f32(16, 2, 3), "Bias": f32(3)},
           {"paddings": [1, 1], "fuse_activation": "relu6"}),
    Sample("winograd_filter", {"Filter": f32(3, 2, 3, 3)}, {"tile": 4}),
    Sample("fused_conv2d_pointwise", {"Input": f32(1, 4, 4, 2), "Filter": f32(3, 2, 1, 1),
                                      "Transposed": f32(2, 3), "Bias": f32(3),
                                      "ResidualData": f32(1, 4, 4, 3)},
           {"data_format": "NHWC", "fuse_activation": "relu"}),
    Sample("pointwise_filter_transpose", {"Filter": f32(3, 2, 1, 1)}),
    Sample("fused_elemwise_activation", {"X": f32(2, 3), "Y": f32(3)},
           {"functor_list": ["relu", "elementwise_add"]}),
    Sample("fused_elemwise_activation", {"X": f32(2, 3), "Y": f32(2, 3)},
           {"functor_list": ["relu", "elementwise_mul"], "save_intermediate_out": True}),
    Sample("gaussian_random", {}, {"shape": [2, 3], "seed": 3}),
    Sample("truncated_gaussian_random", {}, {"shape": [2, 3], "seed": 3}),
    Sample("uniform_random", {}, {"shape": [2, 3], "seed": 3}),
    Sample("increment", {"X": f32(1)}, {"step": 2.0}),
    Sample("isfinite_v2", {"X": f32(2, 3)}),
    Sample("momentum", {"Param": f32(3, 2), "Grad": f32(3, 2), "Velocity": f32(3, 2),
                        "LearningRate": pos32(1)}),
    Sample("momentum", {"Param": f32(3, 2), "Grad": f32(3, 2), "Velocity": f32(3, 2),
                        "LearningRate": pos32(1)},
           {"use_nesterov": True, "regularization_method": "l2_decay",
            "regularization_coeff": 0.1}),
    Sample("one_hot_v2", {"X": i64(3, 1, high=4)}, {"depth": 4}),
    Sample("reduce_all", {"X": f32(2, 3) > 0}, {"dim": [1]}),
    Sample("reduce_any", {"X": f32(2, 3) > 0}, {"reduce_all": True}),
    Sample("sgd", {"Param": f32(3, 2), "LearningRate": pos32(1), "Grad": f32(3, 2)}),
    Sample("adagrad", {"Param": f32(3, 2), "Grad": f32(3, 2), "Moment": pos32(3, 2),
                       "LearningRate": pos32(1)}),
    Sample("dropout", {"X": f32(3, 4)}, {"is_test": True}),
    Sample("dropout", {"X": f32(3, 4)}, {"is_test": True,
                                         "dropout_implementation": "upscale_in_train"}),
    Sample("batch_norm", {"X": f32(2, 3, 2), "Scale": pos32(3), "Bias": f32(3),
                          "Mean": f32(3), "Variance": pos32(3)}, {"is_test": True}),
    Sample("batch_norm", {"X": f32(1, 3), "Scale": pos32(3), "Bias": f32(3),
                          "Mean": f32(3), "Variance": pos32(3)}),
    Sample("cast", {"X": f32(2, 3)}, {"in_dtype": FP32, "out_dtype": FP32}),
    Sample("scale", {"X": f32(2, 3)}, {"scale": 1.0, "bias": 0.0}),
    Sample("reshape2", {"X": f32(2, 3)}, {"shape": [2, 3]}),
    Sample("assign", {"X": f32(2, 3)}),
    Sample("lod_array_length", {"X": test_op_grads.ArrayInput([f32(2), f32(2)])}),
    Sample("logical_and", {"X": f32(2, 3) > 0, "Y": f32(2, 3) > 0}),
    Sample("logical_or", {"X": f32(2, 3) > 0, "Y": f32(3) > 0}),
    Sample("logical_xor", {"X": f32(2, 3) > 0, "Y": f32(2, 3) > 0}),
    Sample("logical_not", {"X": f32(2, 3) > 0}),
    # attribute and creation ops of the sequence models (no gradient, so no grad case)
    Sample("shape", {"Input": f32(2, 3)}),
    Sample("size", {"Input": f32(2, 3)}),
    Sample("range", {"Start": np.array([1], "int64"), "End": np.array([7], "int64"),
                     "Step": np.array([2], "int64")}),

]


def samples() -> list[Sample]:
    found = [Sample(c.op_type, c.inputs, c.attrs, c.output_counts or {})
             for c in test_op_grads.CASES]
    found += [Sample(op_type, inputs, attrs) for _, op_type, inputs, attrs, _ in
              test_ops_forward.CASES]
    return found + EXTRA


# -- running one sample: its op, then the grad ops its grad rule or maker builds --------------
def _arrays(value) -> list:
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _arrays(v)]
    return [value] if isinstance(value, np.ndarray) else []


def _var(block, name: str, like) -> None:
    if isinstance(like, comm.Done):       # a pending reduction (c_allreduce_wait's input)
        block.create_var(name=name, type=VarType.RAW)
        return
    if isinstance(like, (test_op_grads.ArrayInput, list)):       # a tensor array
        elements = like.elements if isinstance(like, test_op_grads.ArrayInput) else like
        block.create_var(name=name, type=VarType.LOD_TENSOR_ARRAY, dtype=elements[0].dtype)
        return
    like = np.asarray(like)
    block.create_var(name=name, shape=like.shape, dtype=like.dtype.name)


def build(sample: Sample):
    """A one-op program for ``sample`` and the values of its inputs, by name."""
    opdef = get_op(sample.op_type)
    program = Program()
    block = program.global_block()
    env, inputs = {}, {}
    for slot, value in sample.inputs.items():
        arrays = value if isinstance(value, list) else [value]
        inputs[slot] = []
        for i, array in enumerate(arrays):
            name = f"in_{slot}_{i}".replace("@", "_").lower()
            env[name] = (array if isinstance(array, comm.Done) else
                         list(array.elements) if isinstance(array, test_op_grads.ArrayInput)
                         else np.asarray(array))
            _var(block, name, array)
            inputs[slot].append(name)
    first = next(iter(env.values()), np.zeros(1))
    outputs = {}
    for slot in opdef.outputs:
        outputs[slot.name] = []
        for i in range(sample.output_counts.get(slot.name, 1)):
            name = f"out_{slot.name}_{i}".lower()
            if opdef.infer_shape is None:
                like = env[inputs[slot.name[:-len(GRAD_SUFFIX)]][i]] if slot.name.endswith(
                    GRAD_SUFFIX) and slot.name[:-len(GRAD_SUFFIX)] in inputs else first
                _var(block, name, like)
            else:
                block.create_var(name=name)
            outputs[slot.name].append(name)
    op = block.append_op(sample.op_type, inputs, outputs, dict(sample.attrs))
    return op, env


def _incoming(like) -> np.ndarray:
    like = np.asarray(like)
    return (_rng.standard_normal(like.shape).astype(like.dtype) if like.dtype.kind == "f"
            else np.ones_like(like))


def grad_ops(op, env: dict) -> list:
    """The grad ops of ``op`` (its forward values in ``env``), appended to its block, with
    random incoming gradients added to ``env``."""
    block = op.block
    ops = []
    for spec in op.opdef.make_grad_ops(op, set()):
        for names in spec["inputs"].values():
            for name in names:
                if name not in env and name.endswith(GRAD_SUFFIX):
                    forward = env[name[:-len(GRAD_SUFFIX)]]
                    env[name] = ([_incoming(a) for a in forward] if isinstance(forward, list)
                                 else _incoming(forward))
                    _var(block, name, env[name])
        for names in spec["outputs"].values():
            for name in names:
                if name != EMPTY_VAR and not block.has_var(name):
                    _var(block, name, env[name[:-len(GRAD_SUFFIX)]])
        ops.append(block.append_op(spec["type"], spec["inputs"], spec["outputs"],
                                   spec["attrs"]))
    return ops


def check_aliasing(op, env: dict) -> list[str]:
    """Run ``op`` on ``env``; what its outputs share against what it declares."""
    opdef = op.opdef
    aliasing = opdef.aliasing
    before = dict(env)
    run_op(op, env)
    problems = []
    ins = [(slot.name, a) for slot in opdef.inputs for a in _arrays(read(before, op, slot))]
    outs = [(slot, name, env[name]) for slot, names in op.outputs.items()
            for name in names if name != EMPTY_VAR]
    for slot, name, value in outs:
        allowed = aliasing.output_sources(slot)
        for in_slot, array in ins:
            for out in _arrays(value):
                if np.shares_memory(out, array) and in_slot not in allowed:
                    problems.append(f"{op.type}: output {slot} shares memory with input "
                                    f"{in_slot} (declared sources: {list(allowed)})")
    if aliasing.owned:
        arrays = [(slot, a) for slot, _, value in outs for a in _arrays(value)]
        for i, (slot, a) in enumerate(arrays):
            if not a.flags.writeable:
                problems.append(f"{op.type}: fresh_outputs, but output {slot} is read-only")
            for other_slot, b in arrays[i + 1:]:
                if np.shares_memory(a, b):
                    problems.append(f"{op.type}: fresh_outputs, but outputs {slot} and "
                                    f"{other_slot} share memory")
    return problems


def check_inplace(op, env: dict) -> list[str]:
    """The in-place kernel on copies of the inputs: the pure kernel's result bit for bit;
    paired outputs in their input's buffer or new, the others new."""
    opdef = op.opdef
    expected = dict(env)
    run_op(op, expected)
    copies = {n: np.array(v, copy=True) if isinstance(v, np.ndarray) else v
              for n, v in env.items()}
    kwargs = {k: op.attrs.get(k, opdef.attrs[k].default) for k in opdef.kernel_attrs}
    args = [read(copies, op, slot) for slot in opdef.inputs]
    result = opdef.inplace_kernel(*args, **kwargs)
    results = (result,) if len(opdef.outputs) == 1 else result
    problems = []
    for slot, value in zip(opdef.outputs, results):
        for name, got in zip(op.outputs.get(slot.name, ()), _arrays(value)):
            want = np.asarray(expected[name])
            if got.dtype != want.dtype or got.shape != want.shape or \
                    got.tobytes() != want.tobytes():
                problems.append(f"{op.type}: in-place {slot.name} differs from the pure kernel")
            paired = opdef.aliasing.inplace.get(slot.name)
            for in_slot, arg in zip(opdef.inputs, args):
                for array in _arrays(arg):
                    if np.shares_memory(got, array) and in_slot.name != paired:
                        problems.append(f"{op.type}: in-place {slot.name} shares memory with "
                                        f"{in_slot.name}")
    return problems


def _sample_id(sample: Sample) -> str:
    return sample.op_type


@pytest.mark.parametrize("sample", samples(), ids=_sample_id)
def test_outputs_share_memory_only_as_declared(sample):
    op, env = build(sample)
    problems = check_aliasing(op, env)
    if op.opdef.inplace_kernel is not None:
        problems += check_inplace(op, {**env})
    for grad_op in grad_ops(op, env):
        problems += check_aliasing(grad_op, env)
    assert not problems, "\n".join(problems)


def covered_ops() -> set[str]:
    found = set()
    for sample in samples():
        op, env = build(sample)
        found.add(op.type)
        run_op(op, env)
        found.update(g.type for g in grad_ops(op, env))
    return found


def test_every_registered_kernel_has_a_sample():
    with_kernel = {t for t in registered_ops()
                   if get_op(t).has_kernel and (get_op(t).kernel or get_op(t).op_kernel)}
    missing = sorted(with_kernel - covered_ops())
    assert not missing, (f"ops without a sample for tests/test_op_aliasing.py: {missing}; add a "
                         "line to EXTRA there (or a case to tests/test_op_grads.py)")


def test_declared_aliasing_of_a_few_ops():
    from pyfluid.ops.registry import ANY, FRESH, VIEWS
    assert get_op("reshape2").aliasing[:2] == (VIEWS, ("X",))
    assert get_op("py_func").aliasing.kind == ANY
    assert get_op("elementwise_add_grad").aliasing[:2] == (ANY, ("Out@GRAD",))
    assert get_op("matmul_v2").aliasing.owned and get_op("matmul_v2").aliasing.kind == FRESH
    assert get_op("scale").aliasing == (FRESH, (), {}, False)
    assert get_op("sgd").aliasing.output_sources("ParamOut") == ()


def test_the_check_catches_an_undeclared_alias_and_a_shared_fresh_output(monkeypatch):
    op, env = build(Sample("reshape2", {"X": f32(2, 3)}, {"shape": [3, 2]}))
    monkeypatch.setattr(op.opdef, "aliasing", op.opdef.aliasing._replace(kind="fresh",
                                                                         sources=()))
    assert check_aliasing(op, dict(env)) == [
        "reshape2: output Out shares memory with input X (declared sources: [])"]
    op, env = build(Sample("relu", {"X": f32(2, 3)}))
    monkeypatch.setattr(op.opdef, "kernel", lambda x: x)
    assert "relu: output Out shares memory with input X" in check_aliasing(op, dict(env))[0]
    monkeypatch.setattr(op.opdef, "kernel", lambda x: np.broadcast_to(np.float32(1), x.shape))
    assert check_aliasing(op, dict(env)) == [
        "relu: fresh_outputs, but output Out is read-only"]
