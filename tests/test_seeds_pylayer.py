"""The PyLayer examples of the user's documents (seeds 000, 001, 003), run unchanged with
``paddle`` aliased to pyfluid; their gradients must equal the analytic ones."""
import contextlib
import io
import sys

import numpy as np
import pytest

import pyfluid
from seed_blocks import extract_blocks, seed_path
from shared_fixtures import SKIP_REASON

GUIDES = [p for p in ("000", "003") if seed_path(p) is not None]
pytestmark = pytest.mark.skipif(seed_path("000") is None,
                                reason=SKIP_REASON)


@pytest.fixture(autouse=True)
def paddle_is_pyfluid(monkeypatch):
    monkeypatch.setitem(sys.modules, "paddle", pyfluid)
    monkeypatch.setitem(sys.modules, "paddle.autograd", pyfluid.autograd)
    pyfluid.disable_static()
    yield


def _run(code: str, namespace: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<seed>", "exec"), namespace)
    return out.getvalue()


def _pylayer_blocks(prefix: str) -> list[str]:
    """The dynamic-graph half of a guide: the blocks before the py_func section."""
    blocks = [b.code for b in extract_blocks(seed_path(prefix))]
    end = next(i for i, code in enumerate(blocks) if "def py_func(" in code)
    return blocks[:end]


def _page_namespace(prefix: str) -> dict:
    """A namespace after the page's first example (which holds the imports later ones use)."""
    ns: dict = {}
    _run(_pylayer_blocks(prefix)[2], ns)
    return ns


def _tanh_grad(x: np.ndarray, n: int) -> np.ndarray:
    return (1 - np.tanh(x) ** 2) / n


@pytest.mark.parametrize("prefix", GUIDES)
def test_guide_has_the_expected_pylayer_blocks(prefix):
    blocks = _pylayer_blocks(prefix)
    assert len(blocks) == 8
    assert blocks[0].startswith("class PyLayer:") and "PyLayerContext" in blocks[1]


@pytest.mark.parametrize("prefix", GUIDES)
def test_guide_cus_tanh(prefix):
    blocks = _pylayer_blocks(prefix)
    ns: dict = {}
    _run(blocks[2], ns)
    printed = _run(blocks[3], ns)
    data = ns["data"]
    assert printed.startswith("Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), "
                              "stop_gradient=True,")
    np.testing.assert_allclose(data.grad.numpy(), _tanh_grad(data.numpy(), 6), rtol=1e-5)


@pytest.mark.parametrize("prefix", GUIDES)
def test_guide_ctx_attribute_and_keyword_inputs(prefix):
    ns: dict = {}
    _run(_pylayer_blocks(prefix)[4], ns)
    ns["z"].mean().backward()
    x = ns["input1"]
    assert x.dtype == pyfluid.float64
    np.testing.assert_allclose(x.grad.numpy(), _tanh_grad(x.numpy(), 6), rtol=1e-10)
    assert ns["input2"].grad is None


@pytest.mark.parametrize("prefix", GUIDES)
def test_guide_non_tensor_outputs_wrong_then_right(prefix):
    code = _pylayer_blocks(prefix)[5]
    wrong, right = code.split("# 正确示例")
    with pytest.raises(ValueError, match="At least one output of `PyLayer.forward` is a"):
        _run(wrong, _page_namespace(prefix))
    ns = _page_namespace(prefix)
    _run(right, ns)
    assert ns["y_shape"] == [2, 3]
    np.testing.assert_allclose(ns["data"].grad.numpy(), np.full([2, 3], 2 / 6), rtol=1e-6)


@pytest.mark.parametrize("prefix", GUIDES)
def test_guide_none_for_stop_gradient_input(prefix):
    ns = _page_namespace(prefix)
    _run(_pylayer_blocks(prefix)[6], ns)
    np.testing.assert_allclose(ns["data1"].grad.numpy(), np.full([2, 3], 1 / 6), rtol=1e-6)
    assert ns["data2"].grad is None


@pytest.mark.parametrize("prefix", GUIDES)
def test_guide_backward_skipped_without_grad_inputs(prefix):
    ns = _page_namespace(prefix)
    printed = _run(_pylayer_blocks(prefix)[7], ns)
    assert printed.strip() == "True"


def test_api_page_doctests():
    path = seed_path("001")
    if path is None:
        pytest.skip(SKIP_REASON)
    blocks = extract_blocks(path)
    ns: dict = {}
    checked = 0
    for block in blocks:
        printed = _run(block.code, ns)
        if block.output:
            data = ns["data"]
            assert data.dtype == pyfluid.float64
            np.testing.assert_allclose(data.grad.numpy(), _tanh_grad(data.numpy(), 6),
                                       rtol=1e-10)
            page_header = block.output.splitlines()[0]
            assert printed.splitlines()[0] == page_header
            assert len(printed.splitlines()) == len(block.output.splitlines())
            checked += 1
            ns = {}
    assert checked == 2
