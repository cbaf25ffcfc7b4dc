"""Finding 1: a program file names the functions its py_func ops call; only functions this
process registered for py_func may run, and resolving a name imports nothing."""
from __future__ import annotations

import numpy as np
import pytest

import pyfluid
from pyfluid.framework import ExecutionError, Program
from pyfluid.static import py_func, py_func_name, register_py_func

from .isolation import run_python

CALLED = []


def wipe_checkpoints():
    """A top-level function of a user module: it must never run because a file names it."""
    CALLED.append("wiped")


def _program_calling(name: str) -> Program:
    """A program as a hostile .pdmodel would describe it, parsed back from bytes."""
    main = Program()
    with pyfluid.static.program_guard(main):
        x = pyfluid.static.data("x", [2], "float32")
        block = main.current_block()
        y = block.create_var(name="y", shape=[2], dtype="float32")
        block.append_op(type="py_func", inputs={"X": [x]}, outputs={"Out": [y]},
                        attrs={"forward_callable_id": 0, "forward_callable_name": name})
    return Program.parse_from_string(main.desc.serialize_to_string())


def test_a_file_cannot_pick_an_unregistered_function_of_the_user():
    program = _program_calling(f"{__name__}:wipe_checkpoints")
    with pytest.raises(ExecutionError, match="is not registered in this process") as info:
        pyfluid.static.Executor().run(program, feed={"x": np.ones(2, "float32")},
                                      fetch_list=["y"])
    assert CALLED == []
    assert "register_py_func" in str(info.value)


def test_resolving_a_name_imports_nothing_and_walks_no_module():
    code = """
        import sys
        import numpy as np
        import pyfluid
        from pyfluid.framework import Program
        pyfluid.enable_static()
        main = Program()
        with pyfluid.static.program_guard(main):
            x = pyfluid.static.data("x", [2], "float32")
            y = main.current_block().create_var(name="y", shape=[2], dtype="float32")
            main.current_block().append_op(
                type="py_func", inputs={"X": [x]}, outputs={"Out": [y]},
                attrs={"forward_callable_name": "numpy:f2py.get_include"})
        program = Program.parse_from_string(main.desc.serialize_to_string())
        assert "numpy.f2py" not in sys.modules
        try:
            pyfluid.static.Executor().run(program, feed={"x": np.ones(2, "float32")},
                                          fetch_list=["y"])
        except Exception as exc:
            print("refused" if "not registered" in str(exc) else f"other {exc}")
        else:
            print("ran")
        print("numpy.f2py" in sys.modules)
    """
    result = run_python(code, timeout=120)
    assert result.stdout.split() == ["refused", "False"], result.stdout + result.stderr


def scaled(x):
    return np.asarray(x) * 2


def test_functions_registered_with_the_decorator_or_py_func_run():
    assert register_py_func(scaled) is scaled
    assert py_func_name(scaled) == f"{__name__}:scaled"
    program = _program_calling(f"{__name__}:scaled")
    got, = pyfluid.static.Executor().run(program, feed={"x": np.ones(2, "float32")},
                                         fetch_list=["y"])
    assert got.tolist() == [2, 2]

    @register_py_func(name="elsewhere:tripled")
    def tripled(x):
        return np.asarray(x) * 3
    got, = pyfluid.static.Executor().run(_program_calling("elsewhere:tripled"),
                                         feed={"x": np.ones(2, "float32")}, fetch_list=["y"])
    assert got.tolist() == [3, 3]


def test_library_functions_are_never_callable_by_name():
    import pickle  # noqa: F401  (imported, still not callable by name)
    for name in ("pickle:_loads", "os:getcwd", "builtins:print"):
        with pytest.raises(ExecutionError, match="is not registered"):
            pyfluid.static.Executor().run(_program_calling(name),
                                          feed={"x": np.ones(2, "float32")}, fetch_list=["y"])


def test_py_func_registers_the_functions_it_is_given():
    x = pyfluid.static.data("x", [2], "float32")
    y = pyfluid.static.default_main_program().current_block().create_var(
        name="y", shape=[2], dtype="float32")

    def negate(v):
        return -np.asarray(v)
    py_func(negate, x, y)
    assert py_func_name(negate).endswith("test_py_func_registers_the_functions_it_is_given."
                                         "<locals>.negate")
