"""pyfluid: a static-graph deep-learning framework in pure Python on NumPy and protobuf, in the
design of PaddlePaddle's Fluid. ``import pyfluid as paddle`` runs Paddle code."""
from __future__ import annotations

import importlib.util as _importlib_util

if _importlib_util.find_spec(__name__ + ".framework") is None:
    raise ImportError(
        "pyfluid is imported from its source folder without being installed: the folders "
        "framework/, executor/, ops/, proto/ and engine/ become pyfluid.* only through "
        "installation. Run `pip install -e .` (or `pip install .`) in the repository root first.")

from . import framework, ops  # noqa: E402,F401  (registers every op)
from .engine import Tensor, grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402
from .executor import CPUPlace, LoDTensor  # noqa: E402
from .framework import Program, disable_static, enable_static, in_dynamic_mode  # noqa: E402
from .ops.random import seed as _seed_ops  # noqa: E402
from .ops.types import VarType  # noqa: E402
from . import tensor  # noqa: E402
from .tensor import *  # noqa: E402,F401,F403  (the functional API: paddle.add, paddle.reshape...)
from .tensor.methods import patch_methods as _patch_methods  # noqa: E402
from . import nn  # noqa: E402  (before the modules whose ParamAttr builds on nn.initializer)
from . import (autograd, dataset, fluid, jit, linalg, onnx, optimizer,  # noqa: E402
               regularizer, static, utils)
from . import base, device, pir, pir_utils, reader  # noqa: E402  (base: Paddle 2.6's fluid)
from .device import (CPUPlace, CUDAPinnedPlace, CUDAPlace, get_device,  # noqa: E402,F811
                     is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_rocm,
                     is_compiled_with_xpu, set_device)
from .dataset.reader import batch  # noqa: E402
from .io.state_io import load, save  # noqa: E402  (paddle.save / paddle.load of state dicts)
from .param_attr import ParamAttr  # noqa: E402
from .static.nn import create_parameter  # noqa: E402
from . import distributed  # noqa: E402  (paddle.distributed; MPI only when a world is joined)
from .distributed import DataParallel  # noqa: E402

_patch_methods()

float16, float32, float64 = VarType.FP16, VarType.FP32, VarType.FP64
int8, int16, int32, int64 = VarType.INT8, VarType.INT16, VarType.INT32, VarType.INT64
uint8, bool = VarType.UINT8, VarType.BOOL  # noqa: A001  (Paddle exports paddle.bool)
__version__ = "0.1.0"


def seed(value: int):
    """Seed pyfluid's default random generator (initializers, dropout, eager randn)."""
    _seed_ops(int(value))


__all__ = [
    "CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "DataParallel", "base", "device", "get_device",
    "is_compiled_with_cinn", "is_compiled_with_cuda", "is_compiled_with_rocm",
    "is_compiled_with_xpu", "pir", "pir_utils", "reader", "set_device", "LoDTensor", "ParamAttr",
    "Program", "Tensor", "autograd", "batch",
    "create_parameter", "dataset", "disable_static", "distributed", "enable_static", "fluid", "grad",
    "in_dynamic_mode", "is_grad_enabled", "jit", "linalg", "load", "nn", "no_grad", "onnx",
    "optimizer",
    "regularizer", "save", "seed", "set_grad_enabled", "static", "tensor", "utils",
] + tensor.__all__
