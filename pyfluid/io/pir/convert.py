"""Rewriting an inference model in the other format: ``.pdmodel`` (Paddle 2.x) <-> PIR
``.json`` (Paddle 3), parameters re-checked and rewritten beside it (``pyfluid convert``)."""
from __future__ import annotations

import os

from ...executor.executor import Executor
from ...executor.scope import Scope, scope_guard
from .. import atomic, paddle_desc
from ..inference import encode_program, load_inference_model
from ..variables import combined_bytes, persistables
from . import LEGACY_SUFFIX, PIR_SUFFIX


def convert_model(source_prefix: str, output: str) -> list[str]:
    """Load the model at ``source_prefix`` (either format) and write ``output`` (its suffix,
    ``.json`` or ``.pdmodel``, picks the format) and the ``.pdiparams`` beside it, atomically.
    Returns the paths written."""
    fmt = "pir" if output.endswith(PIR_SUFFIX) else "pdmodel"
    prefix = output[:-len(PIR_SUFFIX if fmt == "pir" else LEGACY_SUFFIX)]
    scope = Scope()
    with scope_guard(scope):
        program, _, _ = load_inference_model(source_prefix, Executor())
    if fmt == "pdmodel":       # as save_inference_model leaves a Paddle 2.6 program
        paddle_desc.add_empty_input_slots(program)
        paddle_desc.set_lod_levels(program)
        program.desc._set_version()
        program._op_versions = list(paddle_desc.OP_VERSION_MAP)
    files = {os.path.abspath(output): encode_program(program, fmt)}
    variables = persistables(program)
    if variables:
        files[os.path.abspath(prefix + ".pdiparams")] = combined_bytes(variables, scope)
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    atomic.write_files(files)
    return list(files)
