"""Programs with py_func name their functions (``module:qualname``), so a program saved to
disk runs in a fresh process once the defining module registers its functions, fails clearly
when they are not registered, and never runs the wrong function; plus the registry's naming
rules."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyfluid
from pyfluid.framework import ExecutionError, Program
from pyfluid.ops import py_func_registry as registry
from pyfluid.static import py_func, py_func_name, register_py_func

FUNCS_MODULE = '''
import numpy as np
from pyfluid.static import register_py_func


@register_py_func
def relu(x):
    return np.maximum(x, 0.0)


@register_py_func
def relu_grad(y, dy):
    return np.array(dy) * (np.array(y) > 0)
'''

RUNNER = '''
import json, sys
import numpy as np
import pyfluid
from pyfluid.framework import Program
mode, model = sys.argv[1], sys.argv[2]
pyfluid.enable_static()
if mode in ("import", "decoy"):
    if mode == "decoy":   # take Paddle's callable ids 0 and 1 for other functions first
        x = pyfluid.static.data("d", [1], "float32")
        y = pyfluid.static.default_main_program().current_block().create_var(
            name="dy", shape=[1], dtype="float32")
        pyfluid.static.py_func(lambda v: -np.asarray(v), x, y, backward_func=lambda a, b: b)
    import pf_portable_funcs  # noqa: F401
elif mode == "register":
    def my_relu(x):
        return np.maximum(x, 0.0)
    def my_relu_grad(y, dy):
        return np.array(dy) * (np.array(y) > 0)
    pyfluid.static.register_py_func(my_relu, name="pf_portable_funcs:relu")
    pyfluid.static.register_py_func(my_relu_grad, name="pf_portable_funcs:relu_grad")
with open(model, "rb") as f:
    program = Program.parse_from_string(f.read())
x = np.array([[-1.0, 2.0, -3.0, 4.0]], dtype="float32")
try:
    y, dx = pyfluid.static.Executor().run(program, feed={"x": x}, fetch_list=["y", "x@GRAD"])
except Exception as exc:
    print(json.dumps({"error": str(exc)}))
else:
    print(json.dumps({"y": y.tolist(), "dx": dx.tolist()}))
'''


@pytest.fixture(scope="module")
def funcs_module(tmp_path_factory):
    """pf_portable_funcs, written to a folder and imported once (re-importing a module makes
    new functions, which get new names)."""
    folder = tmp_path_factory.mktemp("funcs")
    (folder / "pf_portable_funcs.py").write_text(FUNCS_MODULE)
    sys.path.insert(0, str(folder))
    try:
        import pf_portable_funcs
    finally:
        sys.path.remove(str(folder))
    yield folder, pf_portable_funcs
    sys.modules.pop("pf_portable_funcs", None)


@pytest.fixture
def saved_program(funcs_module, tmp_path):
    """A program using pf_portable_funcs.relu (forward and backward), saved to disk."""
    folder, pf_portable_funcs = funcs_module
    x = pyfluid.static.data("x", [-1, 4], "float32")
    x.stop_gradient = False
    y = pyfluid.static.default_main_program().current_block().create_var(
        name="y", shape=[-1, 4], dtype="float32")
    py_func(pf_portable_funcs.relu, x, y, backward_func=pf_portable_funcs.relu_grad,
            skip_vars_in_backward_input=x)
    pyfluid.static.gradients([pyfluid.sum(y)], [x])
    program = pyfluid.static.default_main_program()
    assert "forward_callable_name='pf_portable_funcs:relu'" in str(program)
    path = tmp_path / "model.pdmodel"
    path.write_bytes(program.desc.serialize_to_string())
    return folder, path


def _run_fresh(mode: str, saved, tmp_path) -> dict:
    folder, model = saved
    script = tmp_path / "runner.py"
    script.write_text(textwrap.dedent(RUNNER))
    result = subprocess.run([sys.executable, str(script), mode, str(model)], capture_output=True,
                            text=True, timeout=120, cwd=str(tmp_path),
                            env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["import", "decoy", "register"])
def test_fresh_process_runs_the_program_once_its_functions_are_registered(
        mode, saved_program, tmp_path):
    got = _run_fresh(mode, saved_program, tmp_path)
    assert got == {"y": [[0.0, 2.0, 0.0, 4.0]], "dx": [[0.0, 1.0, 0.0, 1.0]]}


def test_fresh_process_without_the_module_fails_naming_the_function(saved_program, tmp_path):
    error = _run_fresh("missing", saved_program, tmp_path)["error"]
    assert "'pf_portable_funcs:relu' is not registered in this process" in error
    assert "@pyfluid.static.register_py_func above `def relu` in 'pf_portable_funcs'" in error
    assert "register_py_func(relu, name='pf_portable_funcs:relu')" in error
    assert "py_func(X=[x])" in error                   # the Executor names the op


# -- the registry ------------------------------------------------------------------------------
def importable(x):
    return x


def test_names_come_from_the_function_and_stay_unique():
    assert register_py_func(importable) is importable
    assert py_func_name(importable) == "test_py_func_portability:importable"
    assert register_py_func(importable) is importable
    first, second = (lambda v: v), (lambda v: -v)
    register_py_func(first)
    register_py_func(second)
    base = "test_py_func_portability:test_names_come_from_the_function_and_stay_unique." \
           "<locals>.<lambda>"
    assert py_func_name(first) == base and py_func_name(second).startswith(base + "#")

    def impostor(x):
        return -x
    impostor.__qualname__ = "importable"               # same name, different function
    register_py_func(impostor)
    assert py_func_name(impostor).startswith("test_py_func_portability:importable#")
    with pytest.raises(ValueError, match="already registered to a different function"):
        register_py_func(impostor, name="test_py_func_portability:importable")


def never_registered(x):
    return x


def test_unregistered_functions_are_never_resolved_from_a_program():
    import pickle  # noqa: F401  (imported, yet a program may not call it)
    for name in ("pickle:_loads", "test_py_func_portability:never_registered",
                 "test_py_func_portability:importable#7"):
        with pytest.raises(registry.PyFuncNotRegisteredError, match="not registered"):
            registry.lookup(name)


def test_program_with_only_paddle_ids_is_refused():
    x = pyfluid.static.data("x", [2], "float32")
    block = pyfluid.static.default_main_program().current_block()
    y = block.create_var(name="y", shape=[2], dtype="float32")
    block.append_op(type="py_func", inputs={"X": [x]}, outputs={"Out": [y]},
                    attrs={"forward_callable_id": 0})
    with pytest.raises(ExecutionError, match="forward_callable_id=0 but no "
                                             "forward_callable_name"):
        pyfluid.static.Executor().run(feed={"x": np.ones(2, "float32")}, fetch_list=[y])


def test_loaded_program_runs_in_the_same_process():
    x = pyfluid.static.data("x", [2], "float32")
    y = pyfluid.static.default_main_program().current_block().create_var(
        name="y", shape=[2], dtype="float32")
    py_func(lambda v: np.asarray(v) * 3, x, y)
    loaded = Program.parse_from_string(
        pyfluid.static.default_main_program().desc.serialize_to_string())
    got, = pyfluid.static.Executor().run(loaded, feed={"x": np.ones(2, "float32")},
                                         fetch_list=["y"])
    assert got.tolist() == [3, 3]
