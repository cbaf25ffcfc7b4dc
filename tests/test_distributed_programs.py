"""The programs ``fleet`` writes (Paddle 2.6's ops, slots and attributes), how the Executor
runs their all-reduces (started early, waited for late), and the collective ops on one
process; none of these needs MPI: a stand-in communicator plays two identical ranks."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.distributed import fleet
from pyfluid.executor.collectives import lower_collectives
from pyfluid.framework import unique_name
from pyfluid.framework.passes import apply_passes
from pyfluid.framework.serialize import program_to_bytes
from pyfluid.ops import comm

# op types of Paddle 2.6.2's fleet (RawProgramOptimizer, default strategy) for this network
# on rank 0 of 2, recorded from real Paddle
PADDLE_MAIN = (["mul", "elementwise_add", "relu", "mul", "elementwise_add",
                "softmax_with_cross_entropy", "reduce_mean", "coalesce_tensor", "fill_constant",
                "scale", "reduce_mean_grad", "softmax_with_cross_entropy_grad",
                "elementwise_add_grad", "mul_grad", "relu_grad", "elementwise_add_grad",
                "mul_grad", "c_allreduce_sum"] + ["depend"] * 4 + ["sgd"] * 4)
PADDLE_MAIN_UNFUSED = ["mul", "elementwise_add", "relu", "mul", "elementwise_add",
                       "softmax_with_cross_entropy", "reduce_mean", "fill_constant", "scale",
                       "reduce_mean_grad", "softmax_with_cross_entropy_grad",
                       "elementwise_add_grad", "c_allreduce_sum", "mul_grad", "c_allreduce_sum",
                       "relu_grad", "elementwise_add_grad", "c_allreduce_sum", "mul_grad",
                       "c_allreduce_sum"] + ["sgd"] * 4
PADDLE_STARTUP = (["uniform_random", "fill_constant", "uniform_random", "fill_constant",
                   "fill_constant", "c_gen_nccl_id", "c_comm_init", "fill_constant",
                   "c_allreduce_sum", "c_sync_calc_stream"] + ["c_broadcast"] * 4
                  + ["c_sync_comm_stream"])


class TwinRanks:
    """Two ranks holding identical values, played by one process (sums double)."""

    rank, size = 0, 2

    def allreduce(self, array, op="sum"):
        return array * 2 if op == "sum" else array * array if op == "prod" else array.copy()

    def start_allreduce(self, flat, op="sum"):
        return comm.Done(self.allreduce(flat, op))

    def broadcast(self, array, root=0):
        return array.copy()

    def allgather(self, array):
        return np.concatenate([array, array])

    def barrier(self):
        return None


@pytest.fixture
def twin_world():
    comm.set_communicator(0, TwinRanks())
    yield
    comm.set_communicator(0, None)
    fleet.fleet.__init__()


def build(distributed: bool, hidden=(16,), optimizer=None, **strategy_values):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("image", [None, 784], "float32")
        y = paddle.static.data("label", [None, 1], "int64")
        h = x
        for size in hidden:
            h = paddle.static.nn.fc(h, size, activation="relu")
        loss = paddle.nn.functional.cross_entropy(paddle.static.nn.fc(h, 10), y)
        opt = optimizer or paddle.optimizer.SGD(0.1)
        if distributed:
            fleet.init(is_collective=True)
            strategy = fleet.DistributedStrategy()
            for key, value in strategy_values.items():
                setattr(strategy, key, value)
            opt = fleet.distributed_optimizer(opt, strategy)
        opt.minimize(loss)
    return main, startup, loss


def op_types(program) -> list[str]:
    return [op.type for op in program.global_block().ops]


def test_fleet_writes_paddles_collective_program(twin_world):
    main, startup, _ = build(True)
    assert op_types(main) == PADDLE_MAIN
    assert op_types(startup) == PADDLE_STARTUP
    ops = main.global_block().ops
    coalesce = ops[7]
    assert coalesce.input("Input") == ["fc_1.b_0", "fc_1.w_0", "fc_0.b_0", "fc_0.w_0"]
    assert coalesce.output("Output") == [p + "@GRAD" for p in coalesce.input("Input")]
    assert coalesce.output("FusedOutput") == ["FusedOutput_fc_1.b_0@GRAD_0"]
    assert {k: coalesce.attr(k) for k in ("copy_data", "use_align", "dtype", "op_role")} == {
        "copy_data": False, "use_align": True, "dtype": 5, "op_role": 1}
    scale = ops[9]
    assert scale.input("X") == scale.output("Out") == ["mean_0.tmp_0@GRAD"]
    assert scale.attr("scale") == 0.5
    allreduce = ops[17]
    assert allreduce.input("X") == allreduce.output("Out") == ["FusedOutput_fc_1.b_0@GRAD_0"]
    assert (allreduce.attr("ring_id"), allreduce.attr("use_calc_stream"),
            allreduce.attr("op_role")) == (0, False, 1)
    assert [(op.input("X"), op.input("Dep")) for op in ops[18:22]] == [
        ([g], ["FusedOutput_fc_1.b_0@GRAD_0"]) for g in coalesce.output("Output")]
    gen, init = startup.global_block().ops[5:7]
    assert gen.output("Out") == init.input("X") == ["comm_id_0"]
    assert startup.global_block().var("comm_id_0").type == paddle.VarType.RAW
    assert (init.attr("nranks"), init.attr("rank"), init.attr("ring_id"),
            init.attr("device_id")) == (2, 0, 0, -1)
    broadcasts = startup.global_block().ops[10:14]
    assert [op.input("X")[0] for op in broadcasts] == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0",
                                                       "fc_1.w_0"]
    assert all(op.attr("root") == 0 for op in broadcasts)


def test_unfused_strategy_reduces_each_gradient_after_its_op(twin_world):
    main, _, _ = build(True, fuse_all_reduce_ops=False)
    assert op_types(main) == PADDLE_MAIN_UNFUSED


def test_one_worker_gets_no_collective_ops():
    main, startup, _ = build(True)
    assert not [t for t in op_types(main) + op_types(startup) if t.startswith("c_")]
    assert (fleet.worker_index(), fleet.worker_num()) == (0, 1)


def test_executor_starts_each_bucket_after_its_last_gradient_and_waits_before_updates(
        twin_world):
    main, _, _ = build(True, hidden=(32, 16), fuse_grad_size_in_num=2)
    before = str(main)
    program = lower_collectives(main)
    lowered = op_types(program)
    assert str(main) == before                      # the user's program is untouched
    assert "coalesce_tensor" not in lowered and "depend" not in lowered
    assert lowered.count("c_allreduce_start") == lowered.count("c_allreduce_wait") == 3
    starts = [i for i, t in enumerate(lowered) if t == "c_allreduce_start"]
    waits = [i for i, t in enumerate(lowered) if t == "c_allreduce_wait"]
    assert starts[-1] < waits[0] == lowered.index("sgd") - 1   # overlap: all start, then wait
    first, previous = program.global_block().ops[starts[0]], program.global_block().ops[
        starts[0] - 1]                                  # the last layer's bucket, right away
    assert first.input("X") == ["fc_2.b_0@GRAD", "fc_2.w_0@GRAD"]
    assert previous.type == "mul_grad" and "fc_2.w_0@GRAD" in previous.output_arg_names


@pytest.mark.parametrize("strategy", [{}, {"fuse_grad_size_in_num": 2},
                                      {"fuse_all_reduce_ops": False},
                                      {"calc_comm_same_stream": True}])
def test_two_identical_ranks_train_like_one_process(twin_world, strategy):
    """Each rank's loss gradient is halved and the sum over two identical ranks doubles it
    back: the parameters must be those of one process."""
    rng = np.random.default_rng(3)
    feed = {"image": rng.random((8, 784), dtype=np.float32),
            "label": rng.integers(0, 10, (8, 1)).astype(np.int64)}
    results = []
    for distributed in (False, True):
        paddle.seed(5)
        with paddle.static.scope_guard(paddle.static.Scope()), unique_name.guard():
            main, startup, loss = build(distributed,
                                        optimizer=paddle.optimizer.Momentum(0.1, momentum=0.9),
                                        **(strategy if distributed else {}))
            exe = paddle.static.Executor()
            exe.run(startup)
            for _ in range(3):
                exe.run(main, feed=feed, fetch_list=[loss])
            scope = paddle.static.global_scope()
            results.append({p.name: np.array(scope.find_var(p.name).get_tensor())
                            for p in main.all_parameters()})
    for name, value in results[0].items():
        np.testing.assert_allclose(results[1][name], value, rtol=0, atol=1e-6, err_msg=name)


def test_collective_ops_on_one_process_are_the_identity():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        outs = []
        for op_type, attrs in [("c_allreduce_sum", {}), ("c_allreduce_max", {}),
                               ("c_allreduce_min", {}), ("c_allreduce_prod", {}),
                               ("c_broadcast", {"root": 0}), ("c_allgather", {"nranks": 1}),
                               ("barrier", {}), ("c_sync_calc_stream", {})]:
            out = main.global_block().create_var(name=op_type + "_out", dtype="float32")
            main.global_block().append_op(type=op_type, inputs={"X": [x]},
                                          outputs={"Out": [out]}, attrs=attrs)
            outs.append(out)
        comm_id = startup.global_block().create_var(name="comm_id", persistable=True,
                                                    type=paddle.VarType.RAW)
        startup.global_block().append_op(type="c_gen_nccl_id", outputs={"Out": [comm_id]})
        startup.global_block().append_op(type="c_comm_init", inputs={"X": [comm_id]},
                                         attrs={"nranks": 1, "rank": 0})
    exe = paddle.static.Executor()
    try:
        exe.run(startup)
        value = np.arange(6, dtype=np.float32).reshape(2, 3)
        for result in exe.run(main, feed={"x": value}, fetch_list=outs):
            np.testing.assert_array_equal(result, value)
    finally:
        comm.set_communicator(0, None)


def test_coalesce_tensor_packs_inputs_into_one_buffer():
    op = paddle.ops.get_op("coalesce_tensor")
    a, b = np.ones((2, 3), np.float32), np.full(4, 2.0, np.float32)
    outputs, fused = op.run([a, b], dtype=5, copy_data=True)
    np.testing.assert_array_equal(fused, np.r_[np.ones(6), np.full(4, 2.0)])
    assert outputs[0].base is fused and outputs[0].shape == (2, 3)
    outputs, fused = op.run([a, b], dtype=5, set_constant=True, constant=0.5)
    assert fused.shape == (10,) and np.all(fused == 0.5)


def test_clear_errors_without_a_world(monkeypatch):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2], "float32")
        main.global_block().append_op(type="c_allreduce_sum", inputs={"X": [x]},
                                      outputs={"Out": [x]})
    with pytest.raises(Exception, match="no communicator for ring_id 0: run the startup"):
        paddle.static.Executor().run(main, feed={"x": np.ones(2, np.float32)}, fetch_list=[x])
    monkeypatch.setattr(comm, "_CONNECTOR", [])
    with pytest.raises(comm.CommunicatorError, match=r"needs MPI: install the MPI extra \(pip "
                       r"install \"pyfluid\[distributed\]\""):
        comm.connect(0, 2, 0)
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    with pytest.raises(paddle.distributed.DistributedError, match="not started by MPI"):
        paddle.distributed.init_parallel_env()


def test_unsupported_strategies_are_refused():
    strategy = fleet.DistributedStrategy()
    strategy.amp = True
    with pytest.raises(NotImplementedError, match="amp is not supported by pyfluid"):
        fleet.distributed_optimizer(paddle.optimizer.SGD(0.1), strategy)


PADDLE_PYTHON = os.environ.get("PADDLE_PYTHON") or (
    sys.executable if importlib.util.find_spec("paddle") else None)


@pytest.mark.skipif(PADDLE_PYTHON is None, reason="real Paddle not installed (set PADDLE_PYTHON, "
                                                  "see docs/interop.md)")
def test_saved_distributed_programs_load_in_paddle(twin_world, tmp_path):
    main, startup, _ = build(True)
    paddle.static.Executor().run(startup)
    paddle.static.save(main, str(tmp_path / "dist"))     # .pdmodel: the whole main program
    (tmp_path / "startup.pdmodel").write_bytes(program_to_bytes(startup))
    printed = str(main)
    for op_type in ("coalesce_tensor", "c_allreduce_sum", "depend", "scale"):
        assert op_type in printed
    script = textwrap.dedent("""
        import sys, paddle
        paddle.enable_static()
        for name in ("dist.pdmodel", "startup.pdmodel"):
            with open(sys.argv[1] + "/" + name, "rb") as f:
                program = paddle.static.Program.parse_from_string(f.read())
            print(name, " ".join(op.type for op in program.global_block().ops))
            ops = program.global_block().ops
            for op in ops:
                if op.type in ("c_allreduce_sum", "c_broadcast", "c_comm_init"):
                    print(op.type, op.attr("ring_id"), op.input_arg_names)
    """)
    result = subprocess.run([PADDLE_PYTHON, "-c", script, str(tmp_path)], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"dist.pdmodel {' '.join(PADDLE_MAIN)}" in lines
    assert f"startup.pdmodel {' '.join(PADDLE_STARTUP)}" in lines
    assert "c_allreduce_sum 0 ['FusedOutput_fc_1.b_0@GRAD_0']" in lines
    assert "c_comm_init 0 ['comm_id_0']" in lines


def test_graph_passes_never_drop_a_collective(twin_world):
    _, startup, _ = build(True)
    optimized = apply_passes(startup, None, (), ())
    kept = op_types(optimized)
    for op_type in ("c_gen_nccl_id", "c_comm_init", "c_allreduce_sum", "c_broadcast"):
        assert op_type in kept
