"""paddle.static.save / load (.pdparams, .pdopt, .pdmodel), load_program_state,
set_program_state, and resuming training in a fresh process (spec section 2.4)."""
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.executor import Scope, global_scope, scope_guard
from pyfluid.framework.program import program_from_bytes
from pyfluid.io import ModelFileError

TRAINING = textwrap.dedent("""
    import sys
    import numpy as np
    import pyfluid as paddle

    def build():
        paddle.enable_static()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 5], "float32")
            y = paddle.static.data("y", [None, 1], "float32")
            hidden = paddle.static.nn.fc(x, 8, activation="tanh")
            out = paddle.static.nn.fc(hidden, 1)
            loss = paddle.mean((out - y) * (out - y))
            paddle.optimizer.Adam(learning_rate=0.05).minimize(loss)
        return main, startup, loss

    def batch(step):
        rng = np.random.RandomState(100 + step)
        return {"x": rng.rand(16, 5).astype(np.float32), "y": rng.rand(16, 1).astype(np.float32)}

    def step(exe, main, loss, i):
        return exe.run(main, feed=batch(i), fetch_list=[loss])[0]

    if __name__ == "__main__":
        mode, path, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
        paddle.seed(seed)
        main, startup, loss = build()
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        if mode == "train":          # 4 steps, checkpoint, then the reference steps 5 and 6
            for i in range(4):
                step(exe, main, loss, i)
            paddle.static.save(main, path)
        else:                        # a fresh process: restore, then steps 5 and 6
            paddle.static.load(main, path, exe)
        # step 6's loss depends on step 5's update, which uses the Adam moments
        print(repr([float(step(exe, main, loss, i)) for i in (4, 5)]))
""")


def _run(script, *args):
    run = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout.strip().splitlines()[-1]


def test_checkpoint_resumes_in_a_fresh_process_with_identical_loss(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAINING)
    ckpt = tmp_path / "ckpt" / "model"
    reference = _run(script, "train", ckpt, 1)
    assert sorted(os.listdir(ckpt.parent)) == ["model.pdmodel", "model.pdopt", "model.pdparams",
                                               "model.pdsha256"]
    assert _run(script, "resume", ckpt, 2) == reference      # other init, same restored state
    # without the optimizer state the update differs: the .pdopt file matters
    opt = pickle.loads((tmp_path / "ckpt" / "model.pdopt").read_bytes())
    assert any("moment1" in k for k in opt) and "learning_rate_0" in opt
    zeroed = {k: (np.zeros_like(v) if "moment" in k else v) for k, v in opt.items()}
    (tmp_path / "ckpt" / "model.pdopt").write_bytes(pickle.dumps(zeroed, protocol=4))
    os.remove(tmp_path / "ckpt" / "model.pdsha256")     # edited by hand: not pyfluid's save
    changed = _run(script, "resume", ckpt, 2)
    assert eval(changed)[0] == eval(reference)[0] and eval(changed)[1] != eval(reference)[1]


def _trained(steps=2):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        out = paddle.static.nn.fc(x, 2)
        loss = paddle.mean(out * out)
        paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    for _ in range(steps):
        exe.run(main, feed={"x": np.random.rand(4, 3).astype(np.float32)}, fetch_list=[loss])
    return main, exe


def _values(names):
    return {n: np.array(global_scope().find_var(n).get_tensor()) for n in names}


def test_save_writes_paddle_pickles_and_the_whole_program(tmp_path):
    main, exe = _trained()
    paddle.static.save(main, str(tmp_path / "m"), protocol=2)
    params = pickle.loads((tmp_path / "m.pdparams").read_bytes())
    opt = pickle.loads((tmp_path / "m.pdopt").read_bytes())
    assert sorted(params) == ["fc_0.b_0", "fc_0.w_0"]
    assert sorted(opt) == ["fc_0.b_0_velocity_0", "fc_0.w_0_velocity_0", "learning_rate_0"]
    for name, value in {**params, **opt}.items():
        np.testing.assert_array_equal(value, _values([name])[name])
    whole = program_from_bytes((tmp_path / "m.pdmodel").read_bytes())
    types = [op.type for op in whole.global_block().ops]
    assert "momentum" in types and "feed" not in types
    assert whole._version_field == 2006002


def test_load_restores_parameters_and_optimizer_state(tmp_path):
    main, exe = _trained()
    paddle.static.save(main, str(tmp_path / "m"))
    names = list(main.state_dict("all"))
    saved = _values(names)
    with scope_guard(Scope()):
        paddle.static.load(main, str(tmp_path / "m.pdparams"), exe)   # a suffix is stripped
        restored = _values(names)
    assert all(np.array_equal(saved[n], restored[n]) for n in names)


def test_load_errors_name_what_is_missing(tmp_path):
    main, exe = _trained()
    paddle.static.save(main, str(tmp_path / "m"))
    params = pickle.loads((tmp_path / "m.pdparams").read_bytes())
    del params["fc_0.b_0"]
    (tmp_path / "m.pdparams").write_bytes(pickle.dumps(params))
    os.remove(tmp_path / "m.pdsha256")                  # edited by hand: not pyfluid's save
    with pytest.raises(AssertionError,
                       match=r"Can not find \[fc_0.b_0\] in model file \[.*m.pdparams\]"):
        paddle.static.load(main, str(tmp_path / "m"))
    paddle.static.save(main, str(tmp_path / "m"))
    os.remove(tmp_path / "m.pdopt")
    with pytest.raises(AssertionError, match=r"Optimizer file \[.*m.pdopt\] not exits"):
        paddle.static.load(main, str(tmp_path / "m"))
    with pytest.raises(ValueError, match="executor is required"):
        paddle.static.load(main, str(tmp_path / "nothing"))


def test_save_argument_errors(tmp_path):
    main, _ = _trained(0)
    with pytest.raises(ValueError, match=r"Expected 1<'protocol'<5, but received protocol=5"):
        paddle.static.save(main, str(tmp_path / "m"), protocol=5)
    with pytest.raises(ValueError, match="The 'protocol' MUST be `int`"):
        paddle.static.save(main, str(tmp_path / "m"), protocol="4")
    with pytest.raises(AssertionError, match="model_path MUST be format of dirname/filename"):
        paddle.static.save(main, str(tmp_path) + "/")


def test_wrong_shapes_fail_before_anything_is_set(tmp_path):
    main, exe = _trained()
    paddle.static.save(main, str(tmp_path / "m"))
    params = pickle.loads((tmp_path / "m.pdparams").read_bytes())
    params["fc_0.w_0"] = np.zeros((7, 7), np.float32)
    (tmp_path / "m.pdparams").write_bytes(pickle.dumps(params))
    os.remove(tmp_path / "m.pdsha256")                  # edited by hand: not pyfluid's save
    before = _values(["fc_0.b_0", "fc_0.w_0"])
    with pytest.raises(ModelFileError, match=r"'fc_0.w_0' is declared with shape \[3, 2\] but "
                                             r"the file holds shape \[7, 7\]"):
        paddle.static.load(main, str(tmp_path / "m"))
    after = _values(["fc_0.b_0", "fc_0.w_0"])
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_pickle_that_runs_code_is_refused_and_nothing_ran(tmp_path):
    main, exe = _trained()
    marker = tmp_path / "ran"
    payload = (b"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00}\x8c\x08fc_0.w_0\x8c\x02os\x8c"
               b"\x06system\x93\x8c" + bytes([len(f"touch {marker}")]) +
               f"touch {marker}".encode() + b"\x85R\x94s.")
    (tmp_path / "evil.pdparams").write_bytes(payload)
    before = _values(["fc_0.w_0"])
    with pytest.raises(ModelFileError, match=r"evil.pdparams.*os.system"):
        paddle.static.load(main, str(tmp_path / "evil"))
    with pytest.raises(ModelFileError, match="evil.pdparams"):
        paddle.static.load_program_state(str(tmp_path / "evil"))
    assert not marker.exists()
    np.testing.assert_array_equal(_values(["fc_0.w_0"])["fc_0.w_0"], before["fc_0.w_0"])


def test_load_program_state_and_set_program_state(tmp_path):
    main, exe = _trained()
    paddle.static.save(main, str(tmp_path / "m"))
    state = paddle.static.load_program_state(str(tmp_path / "m"))
    assert sorted(state) == sorted(main.state_dict("all"))
    with scope_guard(Scope()):
        exe.run(paddle.static.Program())               # nothing; values come from the state
        for name, value in state.items():
            global_scope().var(name).get_tensor().set(np.zeros_like(value))
        with pytest.warns(UserWarning, match="not found in program. There are: extra"):
            paddle.static.set_program_state(main, {**state, "extra": np.zeros(1)})
        assert all(np.array_equal(_values([n])[n], v) for n, v in state.items())
        bad = dict(state, **{"fc_0.w_0": np.zeros((2, 2), np.float32)})
        with pytest.raises(AssertionError, match=r"Parameter's shape does not match.*fc_0.w_0"):
            paddle.static.set_program_state(main, bad)
        bad = dict(state, **{"fc_0.b_0": state["fc_0.b_0"].astype(np.float64)})
        with pytest.raises(AssertionError, match="Parameter's data type does not match"):
            paddle.static.set_program_state(main, bad)


def test_save_vars_layouts_load_through_the_fallbacks(tmp_path):
    from pyfluid.io.tensor_stream import tensor_to_bytes
    main, exe = _trained()
    state = {k: np.array(v) for k, v in main.state_dict("all").items()}
    folder = tmp_path / "vars"
    folder.mkdir()
    for name, value in state.items():
        (folder / name).write_bytes(tensor_to_bytes(value))
    loaded = paddle.static.load_program_state(str(folder))
    assert sorted(loaded) == sorted(state)
    with scope_guard(Scope()):
        paddle.static.load(main, str(folder), exe)
        assert all(np.array_equal(_values([n])[n], v) for n, v in state.items())
    params = main.global_block().all_parameters()
    combined = tmp_path / "combined"
    combined.write_bytes(b"".join(tensor_to_bytes(state[p.name])
                                  for p in sorted(params, key=lambda p: p.name)))
    with pytest.raises(ValueError, match="var_list can not be None"):
        paddle.static.load_program_state(str(combined))
    loaded = paddle.static.load_program_state(str(combined), var_list=params)
    assert sorted(loaded) == sorted(p.name for p in params)
