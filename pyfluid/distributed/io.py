"""``paddle.distributed.io``: persistables to and from files or bytes, and inference models in
the fluid-era layout (``dirname`` + file names, or the model and parameters as bytes)."""
from __future__ import annotations

import os
from typing import Any

from ..io.inference import _feed_fetch_names, _parse_program, _read_checked
from ..io.safe_read import PROGRAM_LIMIT
from ..io.save_vars import load_persistables, save_persistables

__all__ = ["load_inference_model_distributed", "load_persistables", "save_persistables"]


def load_inference_model_distributed(dirname: str | None, executor: Any,
                                     model_filename: str | bytes | None = None,
                                     params_filename: str | bytes | None = None,
                                     pserver_endpoints: Any = None) -> list:
    """``[program, feed_target_names, fetch_targets]``. With ``dirname``, the model is
    ``dirname/<model_filename or __model__>`` and the parameters one combined file
    (``params_filename``) or one file per variable; with ``dirname=None`` both come as bytes."""
    if dirname is not None:
        folder = os.path.normpath(dirname)
        if not os.path.isdir(folder):
            raise ValueError(f"There is no directory named '{dirname}'")
        model_path = os.path.join(folder, os.path.basename(model_filename or "__model__"))
        program = _parse_program(_read_checked(model_path, PROGRAM_LIMIT), model_path)
        params = None if params_filename is None else os.path.basename(params_filename)
    else:
        if params_filename is None:
            raise ValueError("The path of params cannot be None when the directory path is "
                             "None.")
        folder, params = None, params_filename
        program = _parse_program(model_filename, "<model bytes>")
    load_persistables(executor, folder, program, params)
    feed_names, fetch_names = _feed_fetch_names(program)
    block = program.global_block()
    return [program, feed_names, [block.var(name) for name in fetch_names]]
