"""Vision programs saved by pyfluid run in Paddle 2.6 with our outputs (needs PADDLE_PYTHON, as
tests/test_paddle_interop.py): the UNet of examples/unet_segmentation.py (conv2d_transpose,
group_norm, batch_norm, bilinear_interp_v2, concat), and every functional vision API of
tests/vision_api_script.py (interpolation modes and size inputs, pad/pad3d, conv3d,
instance_norm, prelu, max_pool2d_with_index, the activations) and of tests/conv_api_script.py
(conv1d, conv1d_transpose, conv3d_transpose)."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import pyfluid as paddle
import conv_api_script
import vision_api_script
from test_paddle_interop import PADDLE_PYTHON
from test_unet_training import example

pytestmark = pytest.mark.skipif(PADDLE_PYTHON is None, reason="real Paddle not installed (set "
                                "PADDLE_PYTHON, see docs/interop.md)")

_PADDLE_SIDE = """
import sys, numpy as np
feeds = dict(np.load(sys.argv[1] + "/feeds.npz"))     # before paddle: see tools/paddle_models
import paddle
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
program, names, fetches = paddle.static.load_inference_model(sys.argv[1] + "/m", exe)
outs = exe.run(program, feed={n: feeds[n] for n in names}, fetch_list=fetches)
np.savez(sys.argv[1] + "/paddle.npz", *outs)
"""


def _run_in_paddle(tmp_path, main, startup, feed_vars, fetches, feeds):
    exe = paddle.static.Executor()
    exe.run(startup)
    ours = exe.run(main, feed=feeds, fetch_list=fetches)
    paddle.static.save_inference_model(str(tmp_path / "m"), feed_vars, fetches, exe,
                                       program=main.clone(for_test=True))
    np.savez(tmp_path / "feeds.npz", **feeds)
    done = subprocess.run([PADDLE_PYTHON, "-c", _PADDLE_SIDE, str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(tmp_path / "paddle.npz") as theirs:
        assert len(theirs.files) == len(ours)
        for i, mine in enumerate(ours):
            np.testing.assert_allclose(theirs[f"arr_{i}"], mine, rtol=1e-5, atol=1e-5,
                                       err_msg=f"output {i}")


def test_the_unet_saved_here_runs_in_paddle(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        images = paddle.static.data("images", [None, 3, 16, 16], "float32")
        model = example.UNet(width=4)
        model.eval()
        logits = model(images)
    x, _ = example.make_batch(np.random.default_rng(5), 2, side=16)
    _run_in_paddle(tmp_path, main, startup, [images], [logits], {"images": x})


@pytest.mark.filterwarnings("ignore:no variable in your model")
@pytest.mark.parametrize("script", [vision_api_script, conv_api_script],
                         ids=["vision", "conv"])
def test_the_functional_vision_apis_saved_here_run_in_paddle(tmp_path, script):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        fetches = script.build(paddle)
    block = main.global_block()
    feed_vars = [block.var(name) for name in script.FEED_SHAPES]
    _run_in_paddle(tmp_path, main, startup, feed_vars, fetches, script.feeds())
