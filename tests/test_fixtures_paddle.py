"""Models saved by real PaddlePaddle 2.6 (../shared/fixtures/paddle) load with
load_inference_model and reproduce Paddle's fetched outputs within 1e-5; their bytes round-trip
exactly through our reader and writer."""
import glob
import os

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.framework.program import program_from_bytes
from pyfluid.framework.serialize import program_to_bytes
from pyfluid.io.tensor_stream import TensorReader, tensor_to_bytes
from shared_fixtures import PADDLE_FIXTURES, SKIP_REASON

FIXTURES = str(PADDLE_FIXTURES)
MODELS = sorted(os.path.basename(p)[:-len(".pdmodel")]
                for p in glob.glob(os.path.join(FIXTURES, "*.pdmodel")))
pytestmark = pytest.mark.skipif(not MODELS, reason=SKIP_REASON)


@pytest.mark.parametrize("name", MODELS)
def test_fixture_reproduces_paddle_outputs(name):
    exe = paddle.static.Executor(paddle.CPUPlace())
    program, feed_names, fetch_targets = paddle.static.load_inference_model(
        os.path.join(FIXTURES, name), exe)
    io = np.load(os.path.join(FIXTURES, name + ".io.npz"))
    outputs = exe.run(program, feed={feed_names[0]: io["x"]}, fetch_list=fetch_targets)
    assert len(outputs) == len([k for k in io.files if k.startswith("y")])
    for i, got in enumerate(outputs):
        assert got.shape == io[f"y{i}"].shape
        np.testing.assert_allclose(got, io[f"y{i}"], rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", MODELS)
def test_fixture_files_round_trip_byte_for_byte(name):
    model = open(os.path.join(FIXTURES, name + ".pdmodel"), "rb").read()
    assert program_to_bytes(program_from_bytes(model)) == model
    params = open(os.path.join(FIXTURES, name + ".pdiparams"), "rb").read()
    reader, records = TensorReader(params), []
    while not reader.at_end:
        records.append(tensor_to_bytes(reader.read()[0]))
    assert b"".join(records) == params
