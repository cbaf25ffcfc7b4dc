"""Writing ONNX files: ``paddle.onnx.export`` (a Layer or ``to_static`` function, traced) and
``paddle.static.export_onnx`` (a static program, its feeds and fetch targets)."""
from __future__ import annotations

import os
from typing import Any, Sequence

DEFAULT_OPSET = 17


def _require_onnx():
    try:
        import onnx
    except ImportError:
        raise ImportError("exporting to ONNX needs the onnx package: pip install "
                          "'pyfluid[onnx]' (or pip install onnx)") from None
    return onnx


def _names(values: Any) -> list[str]:
    values = values if isinstance(values, (list, tuple)) else [values]
    return [v if isinstance(v, str) else v.name for v in values]


def program_to_onnx(program, feed_vars: Any, fetch_vars: Any, scope=None,
                    opset_version: int = DEFAULT_OPSET, check: bool = True):
    """The ``onnx.ModelProto`` of ``program`` pruned to what ``fetch_vars`` need from
    ``feed_vars`` (Variables or names), with the persistables' values from ``scope`` (default:
    the global scope). Ops run as the program says (``is_test`` is not changed here).
    ``check``: run ``onnx.checker.check_model(model, full_check=True)``."""
    onnx = _require_onnx()
    from ..executor.scope import global_scope
    from .program import ProgramWriter
    feeds, fetches = _names(feed_vars), _names(fetch_vars)
    pruned = program.clone()
    block = pruned.global_block()
    block.ops = [op for op in block.ops if op.type not in ("feed", "fetch")]
    pruned = pruned._prune_with_input(feeded_var_names=feeds, targets=fetches)
    writer = ProgramWriter(pruned, scope if scope is not None else global_scope(), opset_version)
    model = writer.model(feeds, fetches)
    if check:
        onnx.checker.check_model(model, full_check=True)
    return model


def _onnx_path(path: str) -> str:
    return path if path.endswith(".onnx") else path + ".onnx"


def save_model(model, path: str) -> str:
    from ..io.atomic import write_file
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    write_file(path, model.SerializeToString())
    return path


def export_onnx(program, feed_vars: Any, fetch_vars: Any, path: str, scope=None,
                opset_version: int = DEFAULT_OPSET) -> str:
    """Write the inference part of a static ``program`` to ``path`` (``.onnx`` appended when
    missing) and return the file's path. As ``save_inference_model`` does, the program is
    pruned to ``fetch_vars`` and its ops run in inference mode (``is_test``: dropout off,
    batch_norm on its running statistics). Parameters come from ``scope`` (default: the
    global scope) and become initializers; unknown dims of the feeds stay symbolic."""
    inference = program.clone()
    inference._inference_optimize(prune_read_op=True)
    model = program_to_onnx(inference, feed_vars, fetch_vars, scope, opset_version)
    return save_model(model, _onnx_path(path))


def export(layer: Any, path: str, input_spec: Sequence[Any] | None = None,
           opset_version: int = DEFAULT_OPSET, **configs: Any) -> None:
    """Paddle's ``paddle.onnx.export``: trace ``layer`` (a Layer or a ``to_static``
    function) with ``input_spec`` (InputSpecs or example Tensors) and write
    ``path + '.onnx'``. ``output_spec`` (in ``configs``) picks some of the outputs."""
    _require_onnx()
    from ..jit.save_load import _concrete_program
    if not os.path.basename(path):
        raise ValueError("The input path MUST be format of dirname/file_prefix [dirname\\"
                         "file_prefix in Windows system], but received file_prefix is empty "
                         "string.")
    concrete = _concrete_program(layer, input_spec)
    outputs = concrete.outputs
    if configs.get("output_spec") is not None:
        wanted = set(_names(configs["output_spec"]))
        outputs = [v for v in concrete.outputs if v.name in wanted]
        if len(outputs) != len(wanted):
            raise ValueError(f"output_spec names {sorted(wanted)}, but the traced outputs are "
                             f"{[v.name for v in concrete.outputs]}")
    export_onnx(concrete.main_program, concrete.inputs, outputs, path + ".onnx",
                scope=concrete.scope(), opset_version=opset_version)
