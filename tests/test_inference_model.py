"""save_inference_model / load_inference_model and their in-memory forms (spec 2.2, 2.3)."""
import os
import warnings

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.executor import Scope, global_scope, scope_guard
from pyfluid.framework.program import program_from_bytes
from pyfluid.io import ModelFileError
from pyfluid.io.tensor_stream import TensorReader
from pyfluid.proto import framework_pb2 as pb


def _model(two_inputs=False):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        feeds = [x]
        if two_inputs:
            z = paddle.static.data("z", [None, 3], "float32")
            x, feeds = x + z, [feeds[0], z]
        hidden = paddle.static.nn.fc(x, 4, activation="relu")
        out = paddle.static.nn.fc(hidden, 2)
        prob = paddle.nn.functional.softmax(out)
        label = paddle.static.data("label", [None, 2], "float32")
        loss = paddle.mean((out - label) * (out - label))   # not needed for inference: pruned
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return main, exe, feeds, [out, prob], loss


def _desc(path):
    desc = pb.ProgramDesc()
    desc.ParseFromString(open(path, "rb").read())
    return desc


def test_round_trip_reproduces_outputs(tmp_path):
    main, exe, feeds, fetches, _ = _model()
    x = np.random.rand(5, 3).astype(np.float32)
    expected = exe.run(main, feed={"x": x, "label": np.zeros((5, 2), np.float32)},
                       fetch_list=fetches)
    paddle.static.save_inference_model(str(tmp_path / "m"), feeds, fetches, exe, program=main)
    with scope_guard(Scope()):
        program, feed_names, fetch_targets = paddle.static.load_inference_model(
            str(tmp_path / "m"), exe)
        got = exe.run(program, feed={feed_names[0]: x}, fetch_list=fetch_targets)
    assert feed_names == ["x"]
    assert [v.name for v in fetch_targets] == ["save_infer_model/scale_0.tmp_0",
                                               "save_infer_model/scale_1.tmp_0"]
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=0, atol=1e-6)


def test_pdmodel_follows_paddle_conventions(tmp_path):
    main, exe, feeds, fetches, _ = _model(two_inputs=True)
    paddle.static.save_inference_model(str(tmp_path / "m"), feeds, fetches, exe, program=main)
    desc = _desc(str(tmp_path / "m.pdmodel"))
    block = desc.blocks[0]
    types = [op.type for op in block.ops]
    assert types[:2] == ["feed", "feed"] and types[-2:] == ["fetch", "fetch"]
    cols = [(op.outputs[0].arguments[0], [a.i for a in op.attrs if a.name == "col"][0])
            for op in block.ops[:2]]
    assert cols == [("z", 1), ("x", 0)]                       # prepended: reverse col order
    assert "mean" not in types and "reduce_mean" not in types  # pruned to the fetch targets
    scales = [op.outputs[0].arguments[0] for op in block.ops if op.type == "scale"]
    assert scales == ["save_infer_model/scale_0.tmp_0", "save_infer_model/scale_1.tmp_0"]
    for op in block.ops:   # Paddle clips them only from ops that have extra attributes
        names = {a.name for a in op.attrs}
        kept = op.type in ("feed", "fetch")
        assert ("op_callstack" in names) == kept and ("with_quant_attr" in names) == kept
    for var in block.vars:
        assert not var.HasField("is_parameter") and not var.HasField("stop_gradient")
    names = [v.name for v in block.vars]
    assert names[-2:] == ["feed", "fetch"] and names[:-2] == sorted(names[:-2])
    assert desc.version.version == 2006002
    assert len(desc.op_version_map.pair) == 68          # Paddle 2.6.2's whole registry
    scale = next(op for op in block.ops if op.type == "scale")
    assert [(s.parameter, list(s.arguments)) for s in scale.inputs] == [
        ("ScaleTensor", []), ("X", ["fc_1.tmp_1"])]     # declared slots written, empty if unused
    # the user's program gained the scale ops, as with Paddle
    assert [op.type for op in main.global_block().ops].count("scale") == 2


def test_is_test_is_set_in_the_saved_program(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        block = main.global_block()
        out = block.create_var(name="dropped", dtype="float32", shape=[-1, 3])
        mask = block.create_var(name="mask", dtype="uint8", shape=[-1, 3])
        block.append_op(type="dropout", inputs={"X": x}, outputs={"Out": out, "Mask": mask},
                        attrs={"dropout_prob": 0.5, "is_test": False})
    exe = paddle.static.Executor(paddle.CPUPlace())
    with pytest.warns(UserWarning, match="no variable in your model"):
        paddle.static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, program=main)
    assert not os.path.exists(tmp_path / "m.pdiparams")
    dropout = [op for op in _desc(str(tmp_path / "m.pdmodel")).blocks[0].ops
               if op.type == "dropout"][0]
    assert [a.b for a in dropout.attrs if a.name == "is_test"] == [True]
    assert not [op for op in main.global_block().ops if op.attr("is_test")]  # original untouched


def test_pdiparams_holds_persistables_sorted_by_name(tmp_path):
    main, exe, feeds, fetches, _ = _model()
    paddle.static.save_inference_model(str(tmp_path / "m"), feeds, fetches, exe, program=main)
    reader = TensorReader(open(tmp_path / "m.pdiparams", "rb").read())
    names = ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    for name in names:
        array, _ = reader.read()
        np.testing.assert_array_equal(array, np.array(global_scope().find_var(name).get_tensor()))
    assert reader.at_end


def test_in_memory_forms_round_trip():
    main, exe, feeds, fetches, _ = _model()
    x = np.random.rand(2, 3).astype(np.float32)
    expected = exe.run(main, feed={"x": x, "label": np.zeros((2, 2), np.float32)},
                       fetch_list=fetches)
    model_bytes = paddle.static.serialize_program(feeds, fetches, program=main)
    params_bytes = paddle.static.serialize_persistables(feeds, fetches, exe, program=main)
    with scope_guard(Scope()):
        program = paddle.static.deserialize_program(model_bytes)
        paddle.static.deserialize_persistables(program, params_bytes, exe)
        got = exe.run(program, feed={"x": x})             # fetch_list=None: the fetch ops
    np.testing.assert_allclose(got[0], expected[0], atol=1e-6)
    with scope_guard(Scope()):
        program, feed_names, fetch_targets = paddle.static.load_inference_model(
            None, exe, model_filename=model_bytes, params_filename=params_bytes)
        assert feed_names == ["x"] and len(fetch_targets) == 2


def test_old_directory_layout_with_separate_files(tmp_path):
    main, exe, feeds, fetches, _ = _model()
    paddle.static.save_inference_model(str(tmp_path / "m"), feeds, fetches, exe, program=main)
    os.rename(tmp_path / "m.pdmodel", tmp_path / "__model__")
    combined = (tmp_path / "m.pdiparams").read_bytes()
    reader = TensorReader(combined)
    for name in ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]:
        start = reader.offset
        reader.read()
        (tmp_path / name).write_bytes(combined[start:reader.offset])
    with scope_guard(Scope()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program, feed_names, _ = paddle.static.load_inference_model(
            str(tmp_path), exe, model_filename=None, params_filename=None)
        assert feed_names == ["x"]
        assert global_scope().find_var("fc_1.w_0").is_initialized()


def test_argument_errors(tmp_path):
    main, exe, feeds, fetches, _ = _model()
    with pytest.raises(ValueError, match="'path_prefix' should be a string."):
        paddle.static.save_inference_model(3, feeds, fetches, exe, program=main)
    with pytest.raises(ValueError, match="'path_prefix' should not be a directory"):
        paddle.static.save_inference_model(str(tmp_path) + "/", feeds, fetches, exe)
    with pytest.raises(ValueError, match="'feed_vars' should be a Variable or a list of Variable."):
        paddle.static.save_inference_model(str(tmp_path / "m"), "x", fetches, exe, program=main)
    with pytest.raises(ValueError, match="'fetch_vars' should be a Variable or a list"):
        paddle.static.save_inference_model(str(tmp_path / "m"), feeds, ["out"], exe)
    (tmp_path / "d.pdmodel").mkdir()
    with pytest.raises(ValueError, match="d.pdmodel' is an existing directory."):
        paddle.static.save_inference_model(str(tmp_path / "d"), feeds, fetches, exe, program=main)
    with pytest.raises(TypeError, match="program type must be `base.Program`"):
        paddle.static.normalize_program("main", feeds, fetches)
    label = main.global_block().var("label")
    with pytest.raises(ValueError, match="The feeded_var_names\\[1\\]: 'label' doesn't exist in "
                                         "pruned inference program."):
        paddle.static.save_inference_model(str(tmp_path / "m"), feeds + [label], fetches, exe,
                                           program=main)
    with pytest.raises(ValueError, match="There is no directory named"):
        paddle.static.load_inference_model(str(tmp_path / "nowhere" / "m"), exe)


def test_failed_save_leaves_previous_files_intact(tmp_path):
    main, exe, feeds, fetches, _ = _model()
    prefix = str(tmp_path / "m")
    paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=main)
    before = {p: open(prefix + p, "rb").read() for p in (".pdmodel", ".pdiparams")}
    main2, _, feeds2, fetches2, _ = _model()
    with scope_guard(Scope()):                   # parameters have no values here
        with pytest.raises(ValueError, match="cannot save variable 'fc_2.b_0'.*startup"):
            paddle.static.save_inference_model(prefix, feeds2, fetches2, exe, program=main2)
    assert {p: open(prefix + p, "rb").read() for p in before} == before
    assert sorted(os.listdir(tmp_path)) == ["m.pdiparams", "m.pdmodel", "m.pdsha256"]


def _saved(tmp_path, manifest=True):
    """A saved model; without its manifest for tests that damage the files by hand (with it,
    loading refuses them as not of one save before looking inside)."""
    main, exe, feeds, fetches, _ = _model()
    paddle.static.save_inference_model(str(tmp_path / "m"), feeds, fetches, exe, program=main)
    if not manifest:
        os.remove(tmp_path / "m.pdsha256")
    return exe, str(tmp_path / "m")


def _scope_state():
    scope = global_scope()
    return {n: np.array(scope.find_var(n).get_tensor()) for n in scope.local_var_names()
            if scope.find_var(n).is_initialized()}


@pytest.mark.parametrize("damage, message", [
    (lambda p, m: p + b"\0" * 8, "Not allowed to load partial data via load_combine_op"),
    (lambda p, m: p[:-3], "while reading variable 'fc_1.w_0' \\(#4 of 4"),
    (lambda p, m: p[:len(p) // 2], "while reading variable"),
])
def test_corrupt_pdiparams_fails_clearly_and_leaves_scope_unchanged(tmp_path, damage, message):
    exe, prefix = _saved(tmp_path, manifest=False)
    params = open(prefix + ".pdiparams", "rb").read()
    open(prefix + ".pdiparams", "wb").write(damage(params, None))
    with scope_guard(Scope()):
        global_scope().var("fc_0.w_0").get_tensor().set(np.zeros((3, 4), np.float32))
        before = _scope_state()
        with pytest.raises(ModelFileError, match=message) as info:
            paddle.static.load_inference_model(prefix, exe)
        assert prefix + ".pdiparams" in str(info.value)
        after = _scope_state()
        assert before.keys() == after.keys()
        assert all(np.array_equal(before[k], after[k]) for k in before)


def test_foreign_files_fail_clearly(tmp_path):
    exe, prefix = _saved(tmp_path, manifest=False)
    with open(prefix + ".pdmodel", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    with pytest.raises(ModelFileError, match="m.pdmodel.*not a valid Paddle ProgramDesc"):
        paddle.static.load_inference_model(prefix, exe)
    exe, prefix = _saved(tmp_path)
    os.remove(prefix + ".pdiparams")
    with pytest.raises(FileNotFoundError, match="m.pdiparams"):
        paddle.static.load_inference_model(prefix, exe)


def test_params_of_another_model_are_refused(tmp_path):
    exe, prefix = _saved(tmp_path)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        out = paddle.static.nn.fc(x, 5, name="other")
    exe.run(startup)
    paddle.static.save_inference_model(str(tmp_path / "o"), [x], [out], exe, program=main)
    os.replace(tmp_path / "o.pdiparams", prefix + ".pdiparams")
    with scope_guard(Scope()):
        with pytest.raises(ModelFileError, match="m.pdiparams"):
            paddle.static.load_inference_model(prefix, exe)
        assert global_scope().local_var_names() == []


def test_unknown_op_in_a_model_is_a_clear_error(tmp_path):
    exe, prefix = _saved(tmp_path, manifest=False)
    program = program_from_bytes(open(prefix + ".pdmodel", "rb").read())
    program.global_block().ops[2].type = "no_such_op"
    from pyfluid.framework.serialize import program_to_bytes
    open(prefix + ".pdmodel", "wb").write(program_to_bytes(program))
    with pytest.raises(ModelFileError, match="unknown op type 'no_such_op'"):
        paddle.static.load_inference_model(prefix, exe)


# -- the pyfluid command ----------------------------------------------------------------------
def _cli(*argv):
    from pyfluid.cli import main
    return main(list(argv))


def test_cli_show_and_run(tmp_path, capsys):
    main, exe, feeds, fetches, _ = _model()
    x = np.random.rand(2, 3).astype(np.float32)
    expected = exe.run(main, feed={"x": x, "label": np.zeros((2, 2), np.float32)},
                       fetch_list=fetches)
    prefix = str(tmp_path / "m")
    paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=main)
    assert _cli("show", prefix + ".pdmodel") == 0
    shown = capsys.readouterr().out
    assert "inputs: x float32[-1, 3]" in shown and "= mul(" in shown
    np.save(tmp_path / "x.npy", x)
    assert _cli("run", prefix, "--input", f"x={tmp_path / 'x.npy'}", "-o",
                str(tmp_path / "out.npz")) == 0
    assert "y1 = save_infer_model/scale_1.tmp_0: float32[2, 2]" in capsys.readouterr().out
    saved = np.load(tmp_path / "out.npz")
    for i, want in enumerate(expected):
        np.testing.assert_allclose(saved[f"y{i}"], want, atol=1e-6)
    assert _cli("run", prefix) == 1
    assert "missing ['x']" in capsys.readouterr().err
    assert _cli("show", str(tmp_path / "absent")) == 1
    assert "absent.pdmodel" in capsys.readouterr().err


def test_cli_dot(tmp_path, capsys, monkeypatch):
    main, exe, feeds, fetches, _ = _model()
    prefix = str(tmp_path / "m")
    paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=main)
    assert _cli("dot", prefix, "-o", str(tmp_path / "g.dot")) == 0
    source = (tmp_path / "g.dot").read_text()
    assert source.startswith("digraph program {") and '[shape=box, style="rounded,bold", ' \
        'label="softmax"]' in source and '"var:x" ->' in source
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setitem(__import__("sys").modules, "graphviz", None)
    assert _cli("dot", prefix, "-o", str(tmp_path / "g.svg")) == 1
    assert "Graphviz is not installed" in capsys.readouterr().err
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text(f"#!{__import__('sys').executable}\nimport sys\nassert sys.argv[1] == '-Tsvg'\n"
                    "open(sys.argv[3], 'w').write(sys.stdin.read())\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    assert _cli("dot", prefix, "-o", str(tmp_path / "g.svg")) == 0
    assert (tmp_path / "g.svg").read_text() == source


def test_console_script_is_installed(tmp_path):
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(sys.executable), "pyfluid")
    run = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "show" in run.stdout and "dot" in run.stdout
