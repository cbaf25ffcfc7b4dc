"""The control-flow models real PaddlePaddle 2.6.2 saved (../shared/fixtures/paddle/
control_flow: a cond with parameters in both branches, a while_loop with a fed bound) load,
reproduce Paddle's outputs within 1e-5 and round-trip byte for byte."""
import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.framework.program import program_from_bytes
from shared_fixtures import PADDLE_FIXTURES, SKIP_REASON

FOLDER = PADDLE_FIXTURES / "control_flow"
MODELS = sorted(p.stem for p in FOLDER.glob("*.pdmodel")) if FOLDER.is_dir() else []
pytestmark = pytest.mark.skipif(not MODELS, reason=SKIP_REASON)


@pytest.mark.parametrize("name", MODELS)
def test_a_paddle_control_flow_model_reproduces_its_outputs(name):
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feeds, fetches = paddle.static.load_inference_model(str(FOLDER / name), exe)
    assert any(op.type in ("conditional_block", "while") for op in program.global_block().ops)
    io = np.load(FOLDER / f"{name}.io.npz")
    outputs = exe.run(program, feed={f: io[f"x{i}"] for i, f in enumerate(feeds)},
                      fetch_list=fetches)
    assert len(outputs) == len([k for k in io.files if k.startswith("y")])
    for i, got in enumerate(outputs):
        assert got.shape == io[f"y{i}"].shape and got.dtype == io[f"y{i}"].dtype
        np.testing.assert_allclose(got, io[f"y{i}"], rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", MODELS)
def test_a_paddle_control_flow_model_round_trips_byte_for_byte(name):
    data = (FOLDER / f"{name}.pdmodel").read_bytes()
    program = program_from_bytes(data)
    program.verify()
    assert program.desc.serialize_to_string() == data
