"""Inference models in Paddle's formats (spec sections 2.2-2.3): ``save_inference_model`` /
``load_inference_model`` (``.pdmodel`` + ``.pdiparams``) and their in-memory forms."""
from __future__ import annotations

import os
import warnings
from typing import Any

from ..executor.scope import global_scope
from ..framework.context import default_main_program, program_guard
from ..framework.errors import ProgramError
from ..framework.op_append import append_simple_op
from ..framework.program import Program
from ..framework.program import program_from_bytes
from ..framework.serialize import program_to_bytes
from ..framework.variable import Variable
from ..framework.verify import verify
from ..ops.types import VarType
from . import manifest, paddle_desc
from .errors import ModelFileError
from .model_format import model_file, old_style_path, save_format
from .pir import LEGACY_SUFFIX, PIR_SUFFIX, is_pir_json, program_from_json, program_to_json
from .safe_read import PROGRAM_LIMIT, read_file
from .variables import combined_bytes, commit, persistables, read_combined, read_separate

FEED_HOLDER, FETCH_HOLDER = "feed", "fetch"


# -- building the inference program -----------------------------------------------------------
def normalize_program(program: Program, feed_vars: Any, fetch_vars: Any,
                      **kwargs: Any) -> Program:
    """The program ``save_inference_model`` writes: fetch targets behind
    ``save_infer_model/scale_<i>`` ops (added to ``program`` itself, as Paddle does), pruned to
    the targets, ``is_test`` set, feed ops (reverse col order) and fetch ops added, every
    declared input slot present, Paddle's lod_levels and Paddle 2.6.2's version and
    op-version map."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `base.Program`, but received `{type(program)}`")
    feed_vars = feed_vars if isinstance(feed_vars, list) else [feed_vars]
    fetch_vars = fetch_vars if isinstance(fetch_vars, list) else [fetch_vars]
    if not all(isinstance(v, Variable) for v in feed_vars):
        raise TypeError("feed_vars type must be a Variable or a list of Variable.")
    if not all(isinstance(v, Variable) for v in fetch_vars):
        raise TypeError("fetch_vars type must be a Variable or a list of Variable.")
    for op in program.global_block().ops:
        if op.attrs.get("op_device"):
            op._set_attr("op_device", "")
        if op.type == "auc":
            warnings.warn("Be sure that you have set auc states to 0 before saving inference "
                          "model.", stacklevel=2)
    fetch_vars = _scaled_fetch_targets(program, fetch_vars)
    copy = program.clone()
    block = copy.global_block()
    block.ops = [op for op in block.ops if op.type not in (FEED_HOLDER, FETCH_HOLDER)]
    for op in block.ops:
        op.is_target = False
    feed_names = [v.name for v in feed_vars]
    if not kwargs.get("skip_prune_program", False):
        copy = copy._prune_with_input(feeded_var_names=feed_names, targets=fetch_vars)
    copy._inference_optimize(prune_read_op=True)
    _prepend_feed_ops(copy, feed_names)
    _append_fetch_ops(copy, [v.name for v in fetch_vars])
    paddle_desc.add_empty_input_slots(copy)
    paddle_desc.set_lod_levels(copy)
    copy.desc._set_version()
    copy._op_versions = list(paddle_desc.OP_VERSION_MAP)
    copy._bump()
    return copy


def _scaled_fetch_targets(program: Program, fetch_vars: list[Variable]) -> list[Variable]:
    """``scale(var, 1.0, name="save_infer_model/scale_<i>")`` for each non-bool target, in
    ``program`` (the targets may be Variables of another program with the same names, such as
    the program ``program`` was cloned from)."""
    targets = []
    with program_guard(program):
        for i, var in enumerate(fetch_vars):
            if var.dtype != VarType.BOOL:
                var = append_simple_op("scale", {"X": var.name},
                                       {"scale": 1.0, "bias": 0.0, "bias_after_scale": True},
                                       name=f"save_infer_model/scale_{i}",
                                       block=program.current_block())
            targets.append(var)
    return targets


def _prepend_feed_ops(program: Program, names: list[str]) -> None:
    if not names:
        return
    block = program.global_block()
    holder = block.create_var(name=FEED_HOLDER, type=VarType.FEED_MINIBATCH, persistable=True)
    for i, name in enumerate(names):
        if not block.has_var(name):
            raise ValueError(f"The feeded_var_names[{i}]: '{name}' doesn't exist in pruned "
                             f"inference program. Please check whether '{name}' is a valid "
                             f"feed_var name, or remove it from feeded_var_names if '{name}' is "
                             "not involved in the target_vars calculation.")
        block._prepend_op(type="feed", inputs={"X": [holder]}, outputs={"Out": [name]},
                          attrs={"col": i})


def _append_fetch_ops(program: Program, names: list[str]) -> None:
    block = program.global_block()
    holder = block.create_var(name=FETCH_HOLDER, type=VarType.FETCH_LIST, persistable=True)
    for i, name in enumerate(names):
        block.append_op(type="fetch", inputs={"X": [name]}, outputs={"Out": [holder]},
                        attrs={"col": i})


def remove_training_info(program: Program, clip_extra: bool = True) -> Program:
    """Paddle's ``_remove_training_info``: a copy whose VarDescs carry no is_parameter /
    stop_gradient and (with ``clip_extra``) whose ops lose their extra outputs (XShape,
    dropout's Mask, ...) and attributes (see :func:`.paddle_desc.clip_extra`). The variables
    of removed outputs stay, as in Paddle's files."""
    copy = program.clone()
    for block in copy.blocks:
        block.vars = {name: _plain_var(var, block) for name, var in block.vars.items()}
        if clip_extra:
            for op in block.ops:
                paddle_desc.clip_extra(op)
    copy._link_producers()
    return copy


def _plain_var(var: Variable, block) -> Variable:
    plain = Variable(block, var.name, type=var.type, persistable=var.persistable,
                     need_check_feed=var.need_check_feed, lod_level=var._lod_level)
    plain._shape, plain._dtype = var._shape, var._dtype
    plain.desc_attrs = list(var.desc_attrs)
    return plain


# -- saving -----------------------------------------------------------------------------------
def save_inference_model(path_prefix: str, feed_vars: Any, fetch_vars: Any, executor: Any,
                         **kwargs: Any) -> None:
    """Write ``<path_prefix>.pdmodel`` and ``<path_prefix>.pdiparams`` as Paddle 2.6 does, or
    with ``format="pir"`` (or ``FLAGS_enable_pir_api=1`` in the environment, Paddle 3's switch)
    ``<path_prefix>.json`` as Paddle 3 does, plus the save manifest ``<path_prefix>.pdsha256``.
    Both files are computed first and then replaced atomically: a failed or killed save leaves
    the previous files, or files that loading refuses as a mix (see :mod:`.manifest`)."""
    fmt = save_format(kwargs.get("format"))
    path_prefix = _normalize_path_prefix(path_prefix)
    os.makedirs(os.path.dirname(path_prefix), exist_ok=True)
    model_path = path_prefix + (PIR_SUFFIX if fmt == "pir" else LEGACY_SUFFIX)
    params_path = path_prefix + ".pdiparams"
    for path in (model_path, params_path):
        if os.path.isdir(path):
            raise ValueError(f"'{path}' is an existing directory.")
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = _valid_program(kwargs.get("program"))
    program = normalize_program(program, feed_vars, fetch_vars,
                                skip_prune_program=kwargs.get("skip_prune_program", False))
    files = {model_path: encode_program(program, fmt, kwargs.get("clip_extra", True))}
    variables = persistables(program)
    if variables:
        files[params_path] = combined_bytes(variables, global_scope())
    else:
        warnings.warn("no variable in your model, please ensure there are any variables in your "
                      "model to save", stacklevel=2)
    manifest.save_files(files)


def encode_program(program: Program, fmt: str, clip_extra: bool = True) -> bytes:
    """The model file of a normalized inference program (feed ops, ops, fetch ops)."""
    plain = remove_training_info(program, clip_extra)
    if fmt == "pir":
        return program_to_json(plain)
    return program_to_bytes(plain)


def serialize_program(feed_vars: Any, fetch_vars: Any, **kwargs: Any) -> bytes:
    """The ``.pdmodel`` bytes of the normalized inference program (PIR JSON with
    ``format="pir"``, see :func:`save_format`)."""
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = normalize_program(_valid_program(kwargs.get("program")), feed_vars, fetch_vars)
    if save_format(kwargs.get("format")) == "pir":
        return encode_program(program, "pir")
    return program_to_bytes(program)


def serialize_persistables(feed_vars: Any, fetch_vars: Any, executor: Any,
                           **kwargs: Any) -> bytes | None:
    """The ``.pdiparams`` bytes of the normalized inference program's persistables."""
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = normalize_program(_valid_program(kwargs.get("program")), feed_vars, fetch_vars)
    variables = persistables(program)
    if not variables:
        warnings.warn("no variable in your model, please ensure there are any variables in your "
                      "model to save", stacklevel=2)
        return None
    return combined_bytes(variables, global_scope())


# -- loading ----------------------------------------------------------------------------------
def deserialize_program(data: bytes) -> Program:
    """A Program from ``.pdmodel`` (or PIR ``.json``) bytes; malformed bytes raise
    ModelFileError."""
    return _parse_program(data, "<bytes>")


def deserialize_persistables(program: Program, data: bytes, executor: Any) -> None:
    """Load ``.pdiparams`` bytes into the global scope for ``program``'s persistables; on any
    error the scope is left unchanged."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `base.Program`, but received `{type(program)}`")
    variables = [v for v in persistables(program) if v.type != VarType.SELECTED_ROWS]
    commit(global_scope(), read_combined(data, variables, "<bytes>"))


def load_inference_model(path_prefix: str | None, executor: Any, **kwargs: Any) -> list:
    """``[program, feed_target_names, fetch_targets]`` from files written by Paddle or by
    :func:`save_inference_model`; the parameters go to the global scope, all or nothing."""
    unknown = set(kwargs) - {"model_filename", "params_filename"}
    if unknown:
        raise ValueError(f"The arguments {sorted(unknown)} are not supported by "
                         "load_inference_model; only ('model_filename', 'params_filename') are.")
    if path_prefix is None:
        if kwargs.get("params_filename") is None:
            raise ValueError("params_filename cannot be None when path_prefix is None.")
        program = _parse_program(kwargs.get("model_filename"), "<model bytes>")
        variables = persistables(program)
        staged = read_combined(kwargs["params_filename"], variables, "<params bytes>")
    else:
        program, staged = _load_from_files(_normalize_path_prefix(path_prefix), kwargs)
    feed_names, fetch_names = _feed_fetch_names(program)
    commit(global_scope(), staged)
    block = program.global_block()
    return [program, feed_names, [block.var(name) for name in fetch_names]]


def _load_from_files(path_prefix: str, kwargs: dict) -> tuple[Program, dict]:
    dirname = os.path.dirname(path_prefix)
    if not os.path.isdir(dirname):
        raise ValueError(f"There is no directory named {dirname}")
    if not kwargs:
        model_path, params_path = model_file(path_prefix), path_prefix + ".pdiparams"
    else:
        model_path = old_style_path(path_prefix, kwargs.get("model_filename"), "__model__",
                                     LEGACY_SUFFIX, PIR_SUFFIX)
        params_path = old_style_path(path_prefix, kwargs.get("params_filename"), "",
                                      ".pdiparams")
        warnings.warn("The old way to load inference model is deprecated. model path: "
                      f"{model_path}, params path: {params_path}", stacklevel=3)
    program = _parse_program(_read_checked(model_path, PROGRAM_LIMIT), model_path)
    variables = persistables(program)
    if not variables:
        return program, {}
    if os.path.isdir(params_path):
        return program, read_separate(params_path, variables)
    return program, read_combined(_read_checked(params_path), variables, params_path)


def _read_checked(path: str, limit: int | None = None) -> bytes:
    """A file's bytes, refused when the save manifest beside it records other content."""
    data = read_file(path, limit)
    manifest.check(path, data)
    return data


def read_program_file(path: str) -> Program:
    """The program of a model file (``.pdmodel`` or PIR ``.json``), checked like a load."""
    return _parse_program(_read_checked(path, PROGRAM_LIMIT), path)


def _parse_program(data: Any, source: str) -> Program:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"expected the bytes of a .pdmodel, got {type(data).__name__}")
    try:
        pir = source.endswith(PIR_SUFFIX) or is_pir_json(data)
        program = (program_from_json(data, source) if pir
                   else program_from_bytes(bytes(data), source))
        verify(program)
        _check_tensor_types(program)
        _check_attribute_values(program)
        _feed_fetch_names(program)
    except ProgramError as exc:
        raise ModelFileError(source, str(exc)) from None
    return program


def _check_tensor_types(program: Program) -> None:
    for var in program.list_vars():
        if var._dtype is not None and not var._dtype.is_dtype:
            raise ProgramError(f"variable '{var.name}' has element type {var._dtype.name}, "
                               "which is not a data type")


_DTYPE_ATTRS = ("dtype", "in_dtype", "out_dtype")
_MAX_RANK = 64


def _check_attribute_values(program: Program) -> None:
    """Data-type and shape attributes a kernel would turn into a NumPy dtype or an array:
    refused here, naming the op, rather than failing deep inside a run."""
    for block in program.blocks:
        for index, op in enumerate(block.ops):
            where = f"op #{index} '{op.type}' of block {block.idx}"
            for name in _DTYPE_ATTRS:
                value = op.attrs.get(name)
                if type(value) is int and value != -1 and not _is_dtype(value):
                    raise ProgramError(f"{where}: attribute {name}={value} is not a data type "
                                       f"(a VarType such as {int(VarType.FP32)} for float32)")
            shape = op.attrs.get("shape")
            if isinstance(shape, (list, tuple)) and len(shape) > _MAX_RANK:
                raise ProgramError(f"{where}: attribute shape has rank {len(shape)}; at most "
                                   f"{_MAX_RANK} is supported")


def _is_dtype(value: int) -> bool:
    try:
        return VarType(value).is_dtype
    except ValueError:
        return False


def _feed_fetch_names(program: Program) -> tuple[list[str], list[str]]:
    """Feed and fetch target names ordered by the ``col`` attribute (as Paddle reads them)."""
    block = program.global_block()
    result = []
    for kind, slot in ((FEED_HOLDER, "Out"), (FETCH_HOLDER, "X")):
        by_col = {}
        for op in block.ops:
            if op.type != kind:
                continue
            names = op.outputs.get(slot) if slot == "Out" else op.inputs.get(slot)
            col = op.attr("col")
            if not names or len(names) != 1 or not isinstance(col, int) or col in by_col \
                    or names[0] not in block.vars:
                raise ProgramError(f"malformed {kind} op (target {names}, col {col!r})")
            by_col[col] = names[0]
        if sorted(by_col) != list(range(len(by_col))):
            raise ProgramError(f"{kind} op cols {sorted(by_col)} are not 0..n-1")
        result.append([by_col[c] for c in sorted(by_col)])
    return result[0], result[1]


# -- argument checks --------------------------------------------------------------------------
def _normalize_path_prefix(path_prefix: Any) -> str:
    if not isinstance(path_prefix, str):
        raise ValueError("'path_prefix' should be a string.")
    if path_prefix.endswith("/"):
        raise ValueError("'path_prefix' should not be a directory")
    return os.path.abspath(os.path.normpath(path_prefix))


def _check_vars(name: str, var_list: Any) -> None:
    var_list = var_list if isinstance(var_list, list) else [var_list]
    if not all(isinstance(v, Variable) for v in var_list):     # empty is allowed, as in Paddle
        raise ValueError(f"'{name}' should be a Variable or a list of Variable.")


def _valid_program(program: Any) -> Program:
    if program is None:
        return default_main_program()
    inner = getattr(program, "_program", None)       # CompiledProgram
    if inner is not None and not isinstance(program, Program):
        warnings.warn("The input is a CompiledProgram, this is not recommended.", stacklevel=3)
        program = inner
    if not isinstance(program, Program):
        raise TypeError("The type of input program is invalid, expected type is base.Program, "
                        f"but received {type(program)}")
    return program


__all__ = ["deserialize_persistables", "deserialize_program", "load_inference_model",
           "normalize_program", "save_inference_model", "serialize_persistables",
           "serialize_program"]
