"""The op-declaration example of ops/registry.py's docstring runs as written (under another
op name, since relu is registered): declaration, shape inference, kernel and gradient."""
import re

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import ops, static
from pyfluid.ops import registry


def example_source() -> str:
    block = registry.__doc__.split("::\n", 1)[1].split("\n\nSlot specs", 1)[0]
    return "\n".join(line[4:] for line in block.splitlines())


def test_the_docstring_example_declares_a_working_op():
    source = example_source().replace('"relu"', '"doc_relu"')
    assert "register_op(" in source and "def_grad" in source
    namespace = {"np": np, "register_op": registry.register_op, "same_as": registry.same_as}
    try:
        exec(compile(source, "<registry docstring>", "exec"), namespace)
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [2, 3], "float32")
            x.stop_gradient = False
            out = main.global_block().create_var(name="out")
            main.global_block().append_op("doc_relu", {"X": x}, {"Out": out})
            (dx,) = static.gradients([paddle.sum(out)], [x])
        assert out.shape == (2, 3)
        data = np.array([[-1, 2, -3], [4, -5, 6]], "float32")
        got, grad = static.Executor().run(main, feed={"x": data}, fetch_list=[out, dx])
        np.testing.assert_array_equal(got, np.maximum(data, 0))
        np.testing.assert_array_equal(grad, (data > 0).astype("float32"))
        assert ops.get_op("doc_relu").aliasing.owned
    finally:
        for op_type in ("doc_relu", "doc_relu_grad"):
            registry._OPS.pop(op_type, None)


def test_same_as_takes_a_position():
    with pytest.raises(TypeError, match="position of an input slot"):
        registry.same_as("X")
    assert re.search(r"same_as\(0\)", registry.__doc__)
