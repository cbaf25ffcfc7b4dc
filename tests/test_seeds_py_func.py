"""The py_func examples of the user's documents (seeds 000, 002, 003, 004), extracted from
../shared/seeds at test time and run with ``paddle`` aliased to pyfluid.

Seed 002 shows its examples flush left (the page lost its indentation); ``reindent`` puts it
back with Python's block rules, plus the one thing flat text cannot tell: where the loop of
example 1 ends."""
from __future__ import annotations

import re
import sys

import numpy as np
import pytest

import pyfluid
import pyfluid.fluid
from pyfluid.framework import context
from seed_blocks import extract_blocks, seed_path
from shared_fixtures import SKIP_REASON

pytestmark = pytest.mark.skipif(seed_path("002") is None, reason=SKIP_REASON)

_INDENT = "    "


@pytest.fixture(autouse=True)
def paddle_is_pyfluid(monkeypatch):
    monkeypatch.setitem(sys.modules, "paddle", pyfluid)
    monkeypatch.setitem(sys.modules, "paddle.fluid", pyfluid.fluid)


def _bracket_delta(line: str) -> int:
    bare = re.sub(r"'[^']*'|\"[^\"]*\"", "''", line.split("#", 1)[0])
    return sum(bare.count(c) for c in "([{") - sum(bare.count(c) for c in ")]}")


def reindent(code: str, loop_ends: tuple[str, ...] = ()) -> str:
    """Indent flush-left code: ``:`` opens a block, bracket continuations go one level
    deeper, ``def`` starts at the top level, ``return`` ends its function, ``raise`` ends its
    ``if``, a call of the function being defined ends the definition; a line starting with
    one of ``loop_ends`` is the first line after a loop body."""
    out, depth, functions, brackets, first = [], 0, [], 0, ""
    for raw in code.splitlines():
        line = raw.strip()
        if not line:
            out.append("")
            continue
        if brackets:
            out.append(_INDENT * (depth + 1) + line)
        elif line.startswith("#"):
            out.append(_INDENT * depth + line)
            continue
        else:
            if line.startswith(("def ", "class ")):
                depth, functions = 0, []
            elif line.startswith("return") and functions:
                depth = functions[-1][1]
            elif functions and line.startswith(functions[-1][0] + "("):
                depth = functions.pop()[1] - 1
            if line.startswith(loop_ends):
                depth -= 1
            out.append(_INDENT * depth + line)
            first = line
        brackets += _bracket_delta(line)
        if brackets == 0:
            if line.endswith(":"):
                if first.startswith("def "):
                    functions.append((re.match(r"def (\w+)", first).group(1), depth + 1))
                depth += 1
            elif first.startswith("return") and functions:
                depth = functions.pop()[1] - 1
            elif first.startswith("raise "):
                depth -= 1
    return "\n".join(out) + "\n"


def _runnable(code: str) -> str:
    """The longest prefix of ``code`` that compiles (drops printed output after a program)."""
    lines = code.splitlines()
    for n in range(len(lines), 0, -1):
        try:
            compile("\n".join(lines[:n]), "<seed>", "exec")
            return "\n".join(lines[:n]) + "\n"
        except SyntaxError:
            continue
    raise AssertionError("no runnable code in the block")


def _blocks(prefix: str, needle: str) -> list[str]:
    return [b.code for b in extract_blocks(seed_path(prefix)) if needle in b.code]


def _run(code: str, namespace: dict) -> dict:
    exec(compile(code, f"<seed {namespace['__name__']}>", "exec"), namespace)
    return namespace


# -- seed 002: the paddle.static.py_func API page ----------------------------------------------
def test_seed_002_example_1_four_layers_with_debug_printing(capsys):
    code = reindent(_blocks("002", "# example 1")[0], loop_ends=("prediction = ",))
    ns = _run(code, {"__name__": "seed002_ex1"})
    py_funcs = [op for op in pyfluid.static.default_main_program().global_block().ops
                if op.type == "py_func"]
    assert len(py_funcs) == 8                      # 4 tanh layers + 4 debug ops
    printed = capsys.readouterr().out
    assert printed.count("[[") == 4                # one debug print per layer
    assert "[array(" in printed                    # then the fetched loss
    assert ns["out"][0].shape == () and np.isfinite(ns["out"][0])


def test_seed_002_example_2_fetches_the_sum_with_the_functions_shape(capsys):
    code = reindent(_blocks("002", "# example 2")[0])
    with pytest.warns(RuntimeWarning, match="declared as \\[3, 1\\]"):
        _run(code, {"__name__": "seed002_ex2"})
    assert "= [array([[" in capsys.readouterr().out
    a = np.arange(6, dtype="int32").reshape(2, 3)
    exe = pyfluid.static.Executor(pyfluid.CPUPlace())
    out, = exe.run(pyfluid.static.default_main_program(), feed={"x": a, "y": a * 10},
                   fetch_list=["output"])
    assert out.shape == (2, 3) and out.dtype == np.int32
    np.testing.assert_array_equal(out, a * 11)


# -- seeds 000 / 003: the custom-operator guide ------------------------------------------------
@pytest.mark.parametrize("prefix", ["000", "003"])
@pytest.mark.parametrize("step3", [0, 1])
def test_guide_tanh_gradient_is_analytic(prefix, step3):
    functions, grad_without_x, setup = (_blocks(prefix, "def tanh(x)")[0],
                                        _blocks(prefix, "def tanh_grad_without_x")[0],
                                        _blocks(prefix, "in_var = paddle.static.data")[0])
    calls = _blocks(prefix, "paddle.static.nn.py_func(")
    ns = _run(functions + grad_without_x + setup, {"__name__": f"seed{prefix}_guide"})
    ns["in_var"].stop_gradient = False             # the guide's input is data; train through it
    _run(calls[step3], ns)
    program = pyfluid.static.default_main_program()
    loss = pyfluid.mean(ns["out_var"])
    grad, = pyfluid.static.gradients([loss], [ns["in_var"]])
    backward = [op for op in program.global_block().ops if op.type == "py_func"][-1]
    assert ("input" in backward.input("X")) == (step3 == 0)   # skipped in step 3's variant
    x = np.random.uniform(-2, 2, [2, 28, 28]).astype("float32")
    exe = pyfluid.static.Executor(pyfluid.CPUPlace())
    out, dx = exe.run(program, feed={"input": x}, fetch_list=[ns["out_var"], grad])
    np.testing.assert_allclose(out, np.tanh(x), rtol=1e-6)
    np.testing.assert_allclose(dx, (1 - np.tanh(x) ** 2) / x.size, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("prefix", ["000", "003"])
def test_guide_element_wise_add_and_debug_func(prefix, capsys):
    ns = _run(_blocks(prefix, "def tanh(x)")[0], {"__name__": f"seed{prefix}_funcs"})
    block = pyfluid.static.default_main_program().current_block()
    x = pyfluid.static.data("x", [2, 3], "int32")
    y = pyfluid.static.data("y", [2, 3], "int32")
    out = block.create_var(name="sum", dtype="int32", shape=[2, 3])
    pyfluid.static.py_func(ns["element_wise_add"], [x, y], out)
    pyfluid.static.py_func(ns["debug_func"], out, None)
    a = np.array([[1, 2, 3], [4, 5, 6]], dtype="int32")
    got, = pyfluid.static.Executor().run(feed={"x": a, "y": a}, fetch_list=[out])
    np.testing.assert_array_equal(got, 2 * a)
    assert "[[ 2  4  6]" in capsys.readouterr().out


# -- seed 004: the fluid-era MNIST tutorial with a py_func ReLU -------------------------------
def test_seed_004_tutorial_reaches_80_percent_after_one_epoch(capsys):
    blocks = _blocks("004", "def relu_grad") + _blocks("004", "paddle.dataset.mnist.train()") \
        + _blocks("004", "fluid.program_guard(train_program")
    assert len(blocks) == 3
    program = _runnable("".join(blocks)).replace("EPOCHS = 5", "EPOCHS = 1")
    assert "EPOCHS = 1" in program and "enable_static" not in program
    context.reset_default_programs()
    pyfluid.disable_static()           # as after `import paddle`: the fluid-era page never
    ns = _run(program, {"__name__": "seed004"})     # switches modes; its fluid APIs imply static
    assert pyfluid.in_dynamic_mode()
    assert np.mean(ns["ACC"]) >= 0.80
    assert "Test Done!" in capsys.readouterr().out
