"""``paddle.static.io`` as Paddle 2.6 lays it out (save_to_file/load_from_file, save_vars/
load_vars, the private helpers its tests call), ``paddle.distributed.io``, inference models
with empty feeds, ``paddle.static.auc``, and ``base.backward``'s helpers."""
import warnings

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import base
from pyfluid.executor import Scope, global_scope, scope_guard


def _trained(tmp_path=None):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 2])
        y = paddle.static.nn.fc(x, 1)
    exe = paddle.static.Executor()
    exe.run(startup)
    return main, exe, x, y


def test_save_to_file_and_load_from_file(tmp_path):
    path = str(tmp_path / "blob")
    paddle.static.io.save_to_file(path, b"\x00\x01")
    assert paddle.static.io.load_from_file(path) == b"\x00\x01"
    with pytest.raises(ValueError, match="'content' type should be bytes."):
        paddle.static.io.save_to_file(path, 123)


def test_save_vars_and_load_vars_separately_combined_and_as_bytes(tmp_path):
    main, exe, _, _ = _trained()
    params = main.global_block().all_parameters()
    saved = {p.name: np.array(global_scope().find_var(p.name).get_tensor()) for p in params}
    paddle.static.io.save_vars(exe, str(tmp_path / "sep"), main, vars=params)
    paddle.static.io.save_vars(exe, str(tmp_path), main, predicate=paddle.framework.is_parameter,
                               filename="combined")
    blob = base.io.save_persistables(exe, None, main)
    for load in (lambda: paddle.static.io.load_vars(exe, str(tmp_path / "sep"), main,
                                                    vars=params),
                 lambda: paddle.static.io.load_vars(exe, str(tmp_path), main, vars=params,
                                                    filename="combined"),
                 lambda: base.io.load_persistables(exe, None, main, filename=blob)):
        with scope_guard(Scope()):
            load()
            for name, value in saved.items():
                np.testing.assert_array_equal(np.array(global_scope().find_var(name)
                                                       .get_tensor()), value)
    with pytest.raises(TypeError, match="main_program is invalid"):
        paddle.static.io.load_vars(exe, str(tmp_path), main_program="program")


def test_private_helpers_paddles_tests_call():
    cp = paddle.static.CompiledProgram(paddle.static.Program())
    assert paddle.static.io._get_valid_program(cp) is cp._program
    for bad in ("program", 0, paddle.static.CompiledProgram(base.core.Graph(
            base.core.ProgramDesc()))):
        with pytest.raises(TypeError):
            paddle.static.io._get_valid_program(bad)
    with pytest.warns(UserWarning, match="no variable in your model"):
        assert paddle.static.io._serialize_persistables(paddle.static.Program(), None) is None


def test_inference_model_with_empty_feeds_and_fetches_is_the_bare_program(tmp_path):
    main, exe, _, _ = _trained()
    prefix = str(tmp_path / "m")
    with pytest.warns(UserWarning, match="no variable in your model"):
        paddle.static.save_inference_model(prefix, [], [], exe, program=main)
    program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    assert (feeds, fetches, program.global_block().ops) == ([], [], [])
    assert list(program.global_block().vars) == ["fetch"]


def test_distributed_io_saves_persistables_and_loads_models_from_bytes(tmp_path):
    main, exe, x, y = _trained()
    prefix = str(tmp_path / "model")
    paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    params = paddle.distributed.io.save_persistables(exe, None, main)
    model = paddle.static.io.load_from_file(prefix + ".pdmodel")
    feed = {"x": np.ones((3, 2), "float32")}
    expected, = exe.run(main, feed=feed, fetch_list=[y])
    for args in ((None, exe, model, params),
                 (str(tmp_path), exe, "model.pdmodel", "model.pdiparams")):
        with scope_guard(Scope()):
            program, feed_names, fetch_targets = \
                paddle.distributed.io.load_inference_model_distributed(*args)
            got, = exe.run(program, feed=feed, fetch_list=fetch_targets)
        assert feed_names == ["x"]
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    with pytest.raises(ValueError, match="params cannot be None"):
        paddle.distributed.io.load_inference_model_distributed(None, exe, model, None)
    with pytest.raises(ValueError, match="There is no directory"):
        paddle.distributed.io.load_inference_model_distributed(str(tmp_path / "no"), exe)


def _roc_auc(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return wins / (len(pos) * len(neg))


def test_auc_matches_the_rank_statistic_and_accumulates_over_batches():
    rng = np.random.default_rng(1)
    x = paddle.static.data("x", [-1, 2])
    label = paddle.static.data("label", [-1, 1], "int64")
    auc, batch_auc, states = paddle.static.auc(x, label, num_thresholds=10 ** 4)
    assert [v.shape for v in states] == [(20003,), (20003,), (1, 10001), (1, 10001)]
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    batches = []
    for _ in range(2):
        p = rng.random(64).astype("float32")
        y = (rng.random(64) < p).astype("int64")
        batches.append((p, y))
        got_auc, got_batch = exe.run(feed={"x": np.stack([1 - p, p], 1),
                                           "label": y[:, None]}, fetch_list=[auc, batch_auc])
        assert float(got_batch) == pytest.approx(_roc_auc(p, y), abs=1e-3)
    all_p, all_y = np.concatenate([b[0] for b in batches]), np.concatenate([b[1] for b in batches])
    assert float(got_auc) == pytest.approx(_roc_auc(all_p, all_y), abs=1e-3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        paddle.static.normalize_program(paddle.static.default_main_program(), [x, label],
                                        [auc])
    assert str(caught[0].message) == ("Be sure that you have set auc states to 0 before "
                                      "saving inference model.")


def test_backward_helpers():
    strip = base.backward._strip_grad_suffix_
    assert [strip(n) for n in ("x@GRAD", "x@GRAD@RENAME@1", "x@GRAD_slice_0@GRAD",
                               "grad/grad/x@GRAD@RENAME@block0@1@GRAD")] == \
        ["x", "x", "x@GRAD_slice_0", "x"]
    x = paddle.static.data("x", [2, 3])
    h = paddle.static.nn.fc(x, 3)
    unused = paddle.static.nn.fc(x, 1)
    loss = paddle.mean(h)
    program = paddle.static.default_main_program()
    stops = base.backward._get_stop_gradients_(program)
    assert "x@GRAD" in stops[0] and "fc_0.w_0@GRAD" not in stops[0]
    block = program.global_block()
    path = base.backward._find_op_path_(block, [loss], [], set())
    assert [op.type for op in path] == ["mul", "elementwise_add", "reduce_mean"]
    assert unused.op not in path
    assert base.backward._find_no_grad_vars(block, path, [loss], set()) == set()
    grads = base.backward.append_backward(loss)
    assert not program.global_block().var(loss.name + "@GRAD").stop_gradient
    assert {p.name for p, _ in grads} == {"fc_0.w_0", "fc_0.b_0"}
