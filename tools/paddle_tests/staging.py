"""Staging one Paddle test file for a run: which tests are excluded and why, the stubs of
Paddle's OpTest machinery, the conftest.py (static mode as Paddle's test runner sets it,
datasets served from a local folder), and the import rewriting (``paddle`` -> ``pyfluid``, or
the 2.5 spelling ``paddle.fluid`` -> ``paddle.base`` for Paddle >= 2.6)."""
from __future__ import annotations

import os
import re
from pathlib import Path

# ----------------------------------------------------------------------------------
# Exclusions: {file (relative to --src): {test id pattern: (reason, run)}}.
# A pattern matches a test id exactly, or a whole class with "Class::*".
# run=False deselects the test (it is not even started).
# ----------------------------------------------------------------------------------
RAW_OP = "raw C++ operator: builds Operator(...) on a core.Scope with SelectedRows"
GPU_ONLY = "GPU-only: body runs only when compiled with CUDA (trivially passes on CPU)"
EXCLUSIONS: dict[str, dict[str, tuple[str, bool]]] = {
    "test_sgd_op.py": {
        "TestSparseSGDOp::*": (RAW_OP, True),
        "TestSparseSGDOpCase8X::*": (RAW_OP, True),
        "TestSGDOpOptimizeSelectedRows::*": (RAW_OP, True),
        "TestSGDMultiPrecision2_0::*": (GPU_ONLY, True),
        "TestSGDSimple::*": (GPU_ONLY, True),
        "TestSGDOpWithLargeInput::*": (
            "resources: allocates a 10,000,000 x 150 float32 embedding (6 GB)", False),
    },
    "test_momentum_op.py": {
        "TestSparseMomentumOp::*": (RAW_OP, True),
        "TestSparseMomentumOp2::*": (RAW_OP, True),
        "TestSparseMomentumOpWithDecay::*": (RAW_OP, True),
        "TestSparseMomentumOpWithDecay2::*": (RAW_OP, True),
        "TestSparseMomentumOpWithMultiPrecision::*": (GPU_ONLY + "; " + RAW_OP, True),
        "TestSparseMomentumOpWithMultiPrecision2::*": (GPU_ONLY + "; " + RAW_OP, True),
    },
    "test_adam_op.py": {
        "TestSparseAdamOp::*": (RAW_OP, True),
    },
}

# ----------------------------------------------------------------------------------
# Stubs for Paddle's OpTest machinery. OpTest-derived classes are out of scope (they
# compare single C++ kernels against NumPy references through Paddle internals), so
# every test of a class derived from the stub OpTest is skipped with a fixed reason;
# the stub only has to make the test modules importable. ``op.Operator`` (raw C++
# operator construction) raises SkipTest when used.
# ----------------------------------------------------------------------------------
OPTEST_SKIP_REASON = "excluded: OpTest-derived operator test (out of scope)"
STUB_OP_TEST = '''"""Stub of Paddle's op_test.py / eager_op_test.py written by run_paddle_tests.py.

Classes derived from OpTest are skipped as a whole; helpers imported from this module
are inert placeholders."""
import unittest

import numpy as np

_REASON = %r


class OpTest(unittest.TestCase):
    __unittest_skip__ = True
    __unittest_skip_why__ = _REASON

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__unittest_skip__ = True
        cls.__unittest_skip_why__ = _REASON

    @staticmethod
    def np_dtype_to_base_dtype(x):
        return x

    np_dtype_to_fluid_dtype = np_dtype_to_base_dtype


def skip_check_grad_ci(reason=None):
    def wrapper(cls):
        return cls
    return wrapper


skip_check_inplace_ci = skip_check_grad_ci


def convert_float_to_uint16(x, data_format="NCHW"):
    return (np.asarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def convert_uint16_to_float(x):
    return (np.asarray(x, dtype=np.uint32) << 16).view(np.float32)


class _Inert:
    """Stands for any other helper: callable, usable as a decorator or a context."""

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __getattr__(self, name):
        return self


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Inert()
''' % OPTEST_SKIP_REASON

STUB_OP = '''"""Stub of Paddle's op.py written by run_paddle_tests.py: raw C++ operator
construction (Operator(type, **slots).run(scope, place)) is out of scope."""
import unittest


class _OperatorFactory:
    def __call__(self, *args, **kwargs):
        raise unittest.SkipTest("excluded: raw C++ operator construction (op.Operator)")

    def __getattr__(self, name):
        raise unittest.SkipTest("excluded: raw C++ operator construction (op.Operator)")


Operator = _OperatorFactory()
'''

# Paddle runs these files with tools/test_runner.py, which calls
# paddle.enable_static() before importing a test module whose name is in
# tools/static_mode_white_list.py (STATIC_MODE_TESTING_LIST). These are the measured
# files on that list; the conftest below does the same for them.
STATIC_MODE_TESTING_LIST = {
    "test_adam_op", "test_backward", "test_calc_gradient", "test_executor_and_mul",
    "test_executor_and_use_program_cache", "test_executor_check_feed",
    "test_executor_feed_non_tensor", "test_executor_return_tensor_not_overwriting",
    "test_fetch_var", "test_inference_model_io", "test_io_save_load", "test_momentum_op",
    "test_operator_desc", "test_program", "test_protobuf_descs", "test_prune",
    "test_py_func_op", "test_sgd_op", "test_static_save_load", "test_variable",
    "test_array_read_write_op", "test_case", "test_cond", "test_conditional_block",
    "test_select_input_output_op", "test_switch_case",
}

# conftest.py written into every work dir: static mode as test_runner.py sets it, and
# with --dataset-dir, paddle.dataset downloads served from a local folder.
CONFTEST = '''"""Written by run_paddle_tests.py (its imports are rewritten like the tests')."""
import os

import paddle

# Paddle's tools/test_runner.py enables static mode for modules on its
# STATIC_MODE_TESTING_LIST before importing them.
if %r:
    paddle.enable_static()

_DATASET_DIR = %r


def _serve_datasets_locally():
    try:
        import paddle.dataset.common as common
    except Exception:
        return
    if not hasattr(common, "download"):
        return
    original = common.download

    def download(url, module_name, md5sum=None, save_name=None, *args, **kwargs):
        path = os.path.join(_DATASET_DIR, module_name, save_name or url.split("/")[-1])
        if os.path.exists(path):
            return path
        return original(url, module_name, md5sum, save_name, *args, **kwargs)

    common.download = download


if _DATASET_DIR:
    _serve_datasets_locally()
'''

PYTEST_INI = "[pytest]\naddopts =\npython_files = test_*.py\npython_functions = __no_module_level_functions__\npython_classes = __only_unittest_classes__\n"


# ----------------------------------------------------------------------------------
# Import rewriting
# ----------------------------------------------------------------------------------
_IMPORT_RE = re.compile(r"^(?P<indent>[ \t]*)import[ \t]+(?P<rest>.*\bpaddle\b.*)$")
_FROM_RE = re.compile(r"^(?P<indent>[ \t]*)from[ \t]+paddle(?P<mod>(?:\.[\w.]+)?)[ \t]+import\b(?P<rest>.*)$")


def rewrite_for_pyfluid(text: str) -> str:
    """Point every ``paddle`` import at pyfluid; leave the code body untouched."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        eol = line[len(body):]
        m = _FROM_RE.match(body)
        if m:
            out.append(f"{m['indent']}from pyfluid{m['mod']} import{m['rest']}{eol}")
            continue
        m = _IMPORT_RE.match(body)
        if m:
            out.append(m["indent"] + "import " + _rewrite_import_list(m["rest"]) + eol)
            continue
        out.append(line)
    return "".join(out)


def _rewrite_import_list(rest: str) -> str:
    comment = ""
    if "#" in rest:
        rest, comment = rest.split("#", 1)
        comment = "  #" + comment
    parts = []
    need_alias = False
    for item in rest.split(","):
        item = item.strip()
        if not item:
            continue
        name, _, alias = (s.strip() for s in item.partition(" as "))
        if name == "paddle" or name.startswith("paddle."):
            new = "pyfluid" + name[len("paddle"):]
            if alias:
                parts.append(f"{new} as {alias}")
            elif name == "paddle":
                parts.append("pyfluid as paddle")
            else:  # ``import paddle.x.y`` binds the name ``paddle``
                parts.append(new)
                need_alias = True
        else:
            parts.append(item)
    if need_alias and "pyfluid as paddle" not in parts:
        parts.append("pyfluid as paddle")
    return ", ".join(parts) + comment


_FLUID_FROM_IMPORT_RE = re.compile(r"^(?P<head>[ \t]*from[ \t]+paddle[ \t]+import[ \t]+)(?P<names>.*)$")


def rewrite_fluid_to_base(text: str) -> str:
    """Map the Paddle 2.5 spelling (paddle.fluid) to Paddle 2.6's (paddle.base)."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        eol = line[len(body):]
        m = _FLUID_FROM_IMPORT_RE.match(body)
        if m and re.search(r"\bfluid\b", m["names"]):
            names = re.sub(r"(?<![\w.])fluid\b(?![ \t]+as\b)", "base as fluid", m["names"])
            body = m["head"] + names
        body = re.sub(r"\bpaddle\.fluid\b", "paddle.base", body)
        out.append(body + eol)
    return "".join(out)


def discover(src: Path) -> list[str]:
    files = []
    for p in sorted(src.rglob("test_*.py")):
        rel = p.relative_to(src)
        if any(part.startswith("_") for part in rel.parts[:-1]):
            continue
        files.append(rel.as_posix())
    return files


def match_exclusion(file: str, test_id: str):
    for pattern, (reason, run) in EXCLUSIONS.get(file, {}).items():
        if pattern == test_id or (pattern.endswith("::*") and test_id.split("::")[0] == pattern[:-3]):
            return reason, run
    return None


def prepare_workdir(work: Path, src: Path, rel: str, mode: str, fluid_compat: bool,
                    dataset_dir: str | None) -> Path:
    """Write the file (imports rewritten), its helpers, the stubs, pytest.ini and conftest.py
    into ``work``; return the staged test file."""
    work.mkdir(parents=True, exist_ok=True)

    def transform(text: str) -> str:
        if mode == "pyfluid":
            return rewrite_for_pyfluid(text)
        if fluid_compat:
            return rewrite_fluid_to_base(text)
        return text

    helpers = src / "_helpers"
    if helpers.is_dir():
        for h in sorted(helpers.glob("*.py")):
            (work / h.name).write_text(transform(h.read_text()))
    for name, text in (("op_test.py", STUB_OP_TEST), ("eager_op_test.py", STUB_OP_TEST),
                       ("op.py", STUB_OP)):
        if not (work / name).exists():
            (work / name).write_text(text)
    (work / "pytest.ini").write_text(PYTEST_INI)
    static = Path(rel).stem in STATIC_MODE_TESTING_LIST
    conftest = CONFTEST % (static, os.path.abspath(dataset_dir) if dataset_dir else "")
    (work / "conftest.py").write_text(transform(conftest))
    target = work / Path(rel).name
    target.write_text(transform((src / rel).read_text()))
    return target
