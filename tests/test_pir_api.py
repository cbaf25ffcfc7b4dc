"""Saving, loading and converting Paddle 3 PIR models through the public API: the format
switch (``format="pir"``, ``FLAGS_enable_pir_api``), which file a prefix loads, Paddle 3's
directory layouts and in-memory forms, ``jit.save``/``jit.load`` and the CLI."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.executor import Scope, scope_guard

PIR33 = Path(__file__).resolve().parent / "paddle_models" / "pir33"


def test_save_format_selection(tmp_path, monkeypatch):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        out = paddle.static.nn.fc(x, 2)
    exe = paddle.static.Executor()
    exe.run(startup)
    x_value = np.random.rand(2, 3).astype(np.float32)
    want, = exe.run(main, feed={"x": x_value}, fetch_list=[out])
    save = paddle.static.save_inference_model
    save(str(tmp_path / "a"), [x], [out], exe, program=main)
    save(str(tmp_path / "b"), [x], [out], exe, program=main, format="pir")
    monkeypatch.setenv("FLAGS_enable_pir_api", "1")
    save(str(tmp_path / "c"), [x], [out], exe, program=main)
    save(str(tmp_path / "d"), [x], [out], exe, program=main, format="pdmodel")
    monkeypatch.delenv("FLAGS_enable_pir_api")
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".pdsha256") == [
        "a.pdiparams", "a.pdmodel", "b.json", "b.pdiparams", "c.json", "c.pdiparams",
        "d.pdiparams", "d.pdmodel"]
    assert "b.json" in (tmp_path / "b.pdsha256").read_text()      # the save manifest
    for prefix in "abcd":
        program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / prefix), exe)
        got, = exe.run(program, feed={feeds[0]: x_value}, fetch_list=fetches)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ValueError, match="format must be 'pdmodel'"):
        save(str(tmp_path / "e"), [x], [out], exe, program=main, format="onnx")


def test_a_pir_save_over_a_legacy_one_loads(tmp_path):
    """The save manifest of the earlier .pdmodel save must not refuse the new parameters."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        out = paddle.static.nn.fc(x, 2)
    exe = paddle.static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "m")
    paddle.static.save_inference_model(prefix, [x], [out], exe, program=main)
    exe.run(startup)                                   # new weights
    paddle.static.save_inference_model(prefix, [x], [out], exe, program=main, format="pir")
    os.utime(tmp_path / "m.pdmodel", (1, 1))           # the .json is the newer file
    x_value = np.ones((1, 3), np.float32)
    want, = exe.run(main, feed={"x": x_value}, fetch_list=[out])
    with scope_guard(Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        got, = exe.run(program, feed={"x": x_value}, fetch_list=fetches)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_the_newer_of_two_model_files_is_loaded(tmp_path):
    exe = paddle.static.Executor()
    program, _, _ = paddle.static.load_inference_model(str(PIR33 / "mlp"), exe)
    (tmp_path / "m.json").write_bytes((PIR33 / "mlp.json").read_bytes())
    (tmp_path / "m.pdiparams").write_bytes((PIR33 / "mlp.pdiparams").read_bytes())
    (tmp_path / "m.pdmodel").write_bytes(b"\x0a\x00")         # stale, corrupt, older
    os.utime(tmp_path / "m.pdmodel", (1, 1))
    program, feeds, _ = paddle.static.load_inference_model(str(tmp_path / "m"), exe)
    assert feeds == ["x"]
    os.utime(tmp_path / "m.json", (0, 0))
    with pytest.raises(paddle.io.ModelFileError, match="m.pdmodel"):
        paddle.static.load_inference_model(str(tmp_path / "m"), exe)
    with pytest.raises(FileNotFoundError, match="neither .pdmodel nor .json"):
        paddle.static.load_inference_model(str(tmp_path / "absent"), exe)


def test_old_style_and_in_memory_loading_of_pir(tmp_path):
    """``load_inference_model(dir, exe, model_filename=..., params_filename=...)`` finds
    ``inference.json`` as Paddle 3 does; bytes given in memory are told apart by content."""
    (tmp_path / "inference.json").write_bytes((PIR33 / "mlp.json").read_bytes())
    (tmp_path / "inference.pdiparams").write_bytes((PIR33 / "mlp.pdiparams").read_bytes())
    exe = paddle.static.Executor()
    with pytest.warns(UserWarning, match="old way"):
        _, feeds, _ = paddle.static.load_inference_model(
            str(tmp_path), exe, model_filename="inference", params_filename="inference")
    assert feeds == ["x"]
    _, feeds, _ = paddle.static.load_inference_model(
        None, exe, model_filename=(PIR33 / "mlp.json").read_bytes(),
        params_filename=(PIR33 / "mlp.pdiparams").read_bytes())
    assert feeds == ["x"]
    program = paddle.static.deserialize_program((PIR33 / "mlp.json").read_bytes())
    assert [op.type for op in program.global_block().ops][:2] == ["feed", "matmul_v2"]


def test_indented_and_untrainable_files_load(tmp_path):
    """``readable=True`` indents the JSON; ``trainable=False`` leaves out every ``OA``."""
    model = json.loads((PIR33 / "mlp.json").read_text())
    model["base_code"]["trainable"] = False
    for op in model["program"]["regions"][0]["blocks"][0]["ops"]:
        op.pop("OA", None)
    (tmp_path / "m.json").write_text(json.dumps(model, indent=4))
    (tmp_path / "m.pdiparams").write_bytes((PIR33 / "mlp.pdiparams").read_bytes())
    exe = paddle.static.Executor()
    program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / "m"), exe)
    with np.load(PIR33 / "mlp.io.npz") as npz:
        got, = exe.run(program, feed={"x": npz["x0"]}, fetch_list=fetches)
        np.testing.assert_allclose(got, npz["y0"], rtol=1e-5, atol=1e-6)


def test_jit_save_pir_and_load(tmp_path):
    paddle.disable_static()
    try:
        layer = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(),
                                     paddle.nn.Linear(8, 2))
        x = paddle.to_tensor(np.random.rand(3, 4).astype(np.float32))
        want = layer(x).numpy()
        spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
        paddle.jit.save(layer, str(tmp_path / "net"), input_spec=spec, format="pir")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["net.json", "net.pdiparams",
                                                               "net.pdsha256"]
        loaded = paddle.jit.load(str(tmp_path / "net"))
        np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-6)
    finally:
        paddle.enable_static()


def _cli(*argv):
    from pyfluid.cli import main
    return main(list(argv))


def test_cli_reads_and_converts_pir(tmp_path, capsys):
    assert _cli("show", str(PIR33 / "mlp.json")) == 0
    shown = capsys.readouterr().out
    assert "model: " in shown and "mlp.json" in shown and "inputs: x float32[-1, 16]" in shown
    with np.load(PIR33 / "mlp.io.npz") as npz:
        np.save(tmp_path / "x.npy", npz["x0"])
        want = npz["y0"]
    assert _cli("run", str(PIR33 / "mlp"), "-i", f"x={tmp_path / 'x.npy'}", "-o",
                str(tmp_path / "out.npz")) == 0
    np.testing.assert_allclose(np.load(tmp_path / "out.npz")["y0"], want, rtol=1e-5, atol=1e-6)
    assert _cli("dot", str(PIR33 / "mlp"), "-o", str(tmp_path / "g.dot")) == 0
    assert 'label="softmax"' in (tmp_path / "g.dot").read_text()
    capsys.readouterr()
    assert _cli("convert", str(PIR33 / "mlp"), str(tmp_path / "legacy.pdmodel")) == 0
    assert _cli("convert", str(tmp_path / "legacy.pdmodel"), str(tmp_path / "back.json")) == 0
    assert "back.json" in capsys.readouterr().out
    assert (tmp_path / "back.pdiparams").read_bytes() == (PIR33 / "mlp.pdiparams").read_bytes()
    for prefix in ("legacy", "back"):
        assert _cli("run", str(tmp_path / prefix), "-i", f"x={tmp_path / 'x.npy'}", "-o",
                    str(tmp_path / f"{prefix}.npz")) == 0
        np.testing.assert_allclose(np.load(tmp_path / f"{prefix}.npz")["y0"], want,
                                   rtol=1e-5, atol=1e-6)
    assert _cli("convert", str(PIR33 / "mlp"), str(tmp_path / "out.onnx")) == 1
    assert "must end in .json" in capsys.readouterr().err
