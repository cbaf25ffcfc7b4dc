"""Paddle 2.6's module layout: ``paddle.base`` (and its old name ``paddle.fluid``, the same
modules), ``paddle.framework``'s public functions, ``paddle.device``, ``paddle.pir_utils`` with
PIR off, ``base.dygraph.guard``."""
import importlib

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid import base
from pyfluid.framework import context


def test_fluid_is_base_module_for_module():
    assert paddle.fluid is base
    for name in ("core", "framework", "executor", "backward", "compiler", "dygraph",
                 "unique_name", "layers", "optimizer", "io", "reader", "data_feeder"):
        assert importlib.import_module(f"pyfluid.fluid.{name}") is getattr(base, name)
    assert base.unique_name is paddle.utils.unique_name
    assert base.libpaddle.VarDesc.VarType is base.core.VarDesc.VarType is paddle.VarType


def test_base_exports_what_paddle_code_uses():
    for name in ("Program", "program_guard", "default_main_program", "default_startup_program",
                 "Executor", "CPUPlace", "Scope", "scope_guard", "global_scope", "ParamAttr",
                 "BuildStrategy", "CompiledProgram", "DataFeeder", "gradients",
                 "append_backward", "is_compiled_with_cuda", "data", "LoDTensor"):
        assert hasattr(base, name), name
    assert base.framework.Program is paddle.static.Program
    assert base.executor.Executor is paddle.static.Executor
    assert base.compiler.CompiledProgram is paddle.static.CompiledProgram


def test_framework_public_functions():
    convert = base.framework.convert_np_dtype_to_dtype_
    assert convert(np.float32) == paddle.float32 and convert("float16") == paddle.float16
    assert [convert(t) for t in ("int8", "uint8", "bool")] == [paddle.int8, paddle.uint8,
                                                                 paddle.bool]
    assert paddle.framework.in_pir_mode() is False and paddle.framework.use_pir_api() is False
    x = paddle.static.data("x", [-1, 3])
    paddle.static.nn.fc(x, 2)
    params = [v for v in paddle.static.default_main_program().list_vars()
              if paddle.framework.is_parameter(v)]
    assert sorted(p.name for p in params) == ["fc_0.b_0", "fc_0.w_0"]
    assert not paddle.framework.io_utils.is_belong_to_optimizer(params[0])


def test_places_are_cpu_only_as_in_a_cpu_build():
    assert paddle.is_compiled_with_cuda() is False and base.core.is_compiled_with_cuda() is False
    with pytest.raises(RuntimeError, match="CPU version"):
        base.CUDAPlace(0)
    with pytest.raises(RuntimeError, match="CUDAPinnedPlace"):
        paddle.CUDAPinnedPlace()
    assert paddle.set_device("cpu") == paddle.CPUPlace() and paddle.get_device() == "cpu"
    with pytest.raises(ValueError, match="not compiled with CUDA"):
        paddle.set_device("gpu:0")
    place = base.core.Place()
    place.set_place(base.CPUPlace())
    assert place.is_cpu_place() and not base.core.is_float16_supported(place)


def test_test_with_pir_api_runs_twice_the_second_time_in_fresh_static_programs():
    seen = []

    @paddle.pir_utils.test_with_pir_api
    def body():
        seen.append((paddle.in_dynamic_mode(), paddle.static.default_main_program()))
        paddle.static.data("x", [2])          # twice without a name clash

    outer = paddle.static.default_main_program()
    body()
    assert [s[0] for s in seen] == [False, False]
    assert seen[0][1] is outer and seen[1][1] is not outer
    assert paddle.static.default_main_program() is outer


def test_ir_guard_enters_static_mode_and_restores_dygraph():
    paddle.disable_static()
    with paddle.pir_utils.IrGuard():
        assert not paddle.in_dynamic_mode()
    assert paddle.in_dynamic_mode()


def test_dygraph_guard_runs_eagerly_then_restores_static_mode():
    main = paddle.static.default_main_program()
    with base.dygraph.guard():
        assert paddle.in_dynamic_mode() and base.dygraph.enabled()
        t = base.dygraph.to_variable(np.ones(3, "float32"))
        assert float((t * 2).sum()) == 6.0
        assert paddle.static.default_main_program() is not main
    assert not paddle.in_dynamic_mode()
    assert paddle.static.default_main_program() is main


def test_fluid_era_names_of_modes():
    base.enable_dygraph()
    assert paddle.in_dynamic_mode()
    base.disable_dygraph()
    assert not paddle.in_dynamic_mode() and not base.in_dygraph_mode()
    context.reset_default_programs()
