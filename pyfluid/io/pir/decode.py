"""PIR JSON text -> a checked tree of ops, blocks and regions (no pyfluid objects yet).

The file is untrusted: the text is parsed by the standard ``json`` module (linear time, memory
proportional to the file, nesting bounded by the interpreter's recursion limit), every
recursion here has its own small bound (regions, vector types, array attributes), and
every node is checked for the keys and types Paddle writes. Any problem raises
:class:`.schema.PirFormatError` saying where (``block_3 op #12 (pd_op.matmul)``) and what."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ...framework import desc_reader
from .schema import (PARAMETER_OP, PirFormatError, PirType, decode_attr, decode_type, op_name)

MAGIC = "pir"
MAX_REGION_DEPTH = 64       # nested if/while regions (Paddle's own programs nest a few)
# Memory: the json module alone builds ~11 bytes per byte of Paddle's files (and up to ~24
# for hostile ones), so a PIR load may take twice the .pdmodel budget of
# framework/desc_reader.py. Upper bounds of what json builds: per "{", per "[", per byte.
MEMORY_FACTOR = 2 * desc_reader.MEMORY_FACTOR
OBJECT_COST, ARRAY_COST, BYTE_COST = 72, 64, 12


@dataclass
class PirOp:
    name: str                                   # "pd_op.matmul"
    operands: list[int]                         # value ids; 0 = null
    results: list[tuple[int, PirType | None]]   # (value id, type)
    attrs: dict[str, Any]
    result_attrs: dict[str, list]               # "stop_gradient" -> [bool per result]
    regions: list[list["PirBlock"]] = field(default_factory=list)
    where: str = ""

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)


@dataclass
class PirBlock:
    name: str
    args: list[tuple[int, PirType | None]]
    ops: list[PirOp]


@dataclass
class PirModule:
    version: int
    trainable: bool
    block: PirBlock                             # the module's single top-level block
    budget: int = 0                             # bytes the program built from it may take
    size: int = 0                               # characters of the file


def parse(text: bytes | str) -> PirModule:
    """Parse and check PIR JSON text."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PirFormatError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    budget = MEMORY_FACTOR * len(text) + desc_reader.MEMORY_SLACK
    budget -= (OBJECT_COST * text.count("{") + ARRAY_COST * text.count("[")
               + BYTE_COST * len(text))
    if budget < 0:
        raise too_many_objects(len(text))
    try:
        root = json.loads(text)
    except RecursionError:
        raise PirFormatError("JSON nested too deeply to be a PIR program") from None
    except ValueError as exc:
        raise PirFormatError(f"not valid JSON ({exc})") from None
    if not isinstance(root, dict) or not isinstance(root.get("base_code"), dict):
        raise PirFormatError("not a PIR program: the top level lacks 'base_code'")
    base = root["base_code"]
    if base.get("magic") != MAGIC:
        raise PirFormatError(f"not a PIR program: base_code.magic is {base.get('magic')!r}, "
                             f"expected {MAGIC!r}")
    version = base.get("version")
    if type(version) is not int or version < 0:
        raise PirFormatError(f"base_code.version must be a non-negative integer, got {version!r}")
    program = root.get("program")
    regions = program.get("regions") if isinstance(program, dict) else None
    if not isinstance(regions, list) or len(regions) != 1:
        raise PirFormatError("'program' must hold exactly one region (the module's)")
    blocks = _region(regions[0], "program", 0)
    if len(blocks) != 1:
        raise PirFormatError(f"the module region must hold one block, it holds {len(blocks)}")
    return PirModule(version, bool(base.get("trainable", True)), blocks[0], budget, len(text))


def too_many_objects(size: int) -> PirFormatError:
    """The memory bound of every loader (framework/desc_reader.py): a load builds at most
    MEMORY_FACTOR bytes per byte of file, plus MEMORY_SLACK."""
    return PirFormatError(f"it describes too many objects for its {size} bytes (more than "
                          f"{MEMORY_FACTOR} bytes of memory per byte of file); refusing it "
                          "before it exhausts memory")


def _region(node: Any, where: str, depth: int) -> list[PirBlock]:
    if depth > MAX_REGION_DEPTH:
        raise PirFormatError(f"{where}: regions nested more than {MAX_REGION_DEPTH} deep")
    if not isinstance(node, dict) or not isinstance(node.get("blocks"), list):
        raise PirFormatError(f"{where}: a region must be an object with a 'blocks' list")
    return [_block(b, where, depth) for b in node["blocks"]]


def _block(node: Any, where: str, depth: int) -> PirBlock:
    if not isinstance(node, dict) or not isinstance(node.get("ops"), list):
        raise PirFormatError(f"{where}: a block must be an object with an 'ops' list")
    name = str(node.get("#", "block"))
    args = []
    for arg in _list(node.get("args", []), f"{name}: args"):
        if not isinstance(arg, dict) or type(arg.get("#")) is not int:
            raise PirFormatError(f"{name}: a block argument must be {{'#': id, 'TT': type}}")
        args.append((arg["#"], _type(arg.get("TT"), f"{name} argument {arg['#']}")))
    if node.get("kwargs"):
        raise PirFormatError(f"{name}: keyword block arguments are not supported")
    raw, ops = node["ops"], []
    for i, item in enumerate(raw):
        ops.append(_op(item, f"{name} op #{i}", depth))
        raw[i] = None                  # the JSON of an op is freed once decoded
    return PirBlock(name, args, ops)


def _op(node: Any, where: str, depth: int) -> PirOp:
    if not isinstance(node, dict):
        raise PirFormatError(f"{where}: an op must be an object")
    try:
        name = op_name(node.get("#"))
    except PirFormatError as exc:
        raise PirFormatError(f"{where}: {exc}") from None
    where = f"{where} ({name})"
    try:
        if name == PARAMETER_OP:
            return _parameter(node, where)
        operands = [_value_id(o, "an operand") for o in _list(node.get("I", []), "I")]
        results = [(_value_id(r, "a result"), _type(r.get("TT"), "a result"))
                   for r in _list(node.get("O", []), "O")]
        attrs = _named_attrs(node.get("A", []), "A")
        result_attrs = _named_attrs(node.get("OA", []), "OA")
        regions = [_region(r, where, depth + 1) for r in _list(node.get("regions", []),
                                                               "regions")]
    except PirFormatError as exc:
        raise PirFormatError(f"{where}: {exc}") from None
    return PirOp(name, operands, results, attrs, result_attrs, regions, where)


def _parameter(node: dict, where: str) -> PirOp:
    """``{"#": "p", "A": [is_distributed, is_parameter, need_clip, name], "O": {...},
    "OA": [persistable, stop_gradient, trainable]}``"""
    a = node.get("A")
    if not isinstance(a, list) or len(a) != 4 or not isinstance(a[3], str) or not a[3]:
        raise PirFormatError("A must be [is_distributed, is_parameter, need_clip, name]")
    out = node.get("O")
    if not isinstance(out, dict):
        raise PirFormatError("O must be one result object")
    flags = node.get("OA") or [1, 0, 1]
    if not isinstance(flags, list) or len(flags) != 3 or not all(f in (0, 1) for f in flags):
        raise PirFormatError(f"OA must be [persistable, stop_gradient, trainable], got {flags!r}")
    attrs = {"parameter_name": a[3], "is_parameter": bool(a[1]), "persistable": bool(flags[0]),
             "stop_gradient": bool(flags[1]), "trainable": bool(flags[2])}
    result = (_value_id(out, "the result"), _type(out.get("TT"), "the result"))
    return PirOp(PARAMETER_OP, [], [result], attrs, {}, [], where)


def _named_attrs(items: Any, what: str) -> dict[str, Any]:
    attrs = {}
    for item in _list(items, what):
        if not isinstance(item, dict) or not isinstance(item.get("N"), str):
            raise PirFormatError(f"{what}: an attribute must be {{'N': name, 'AT': value}}")
        try:
            attrs[item["N"]] = decode_attr(item.get("AT"))
        except PirFormatError as exc:
            raise PirFormatError(f"attribute '{item['N']}': {exc}") from None
    return attrs


def _value_id(node: Any, what: str) -> int:
    if not isinstance(node, dict) or type(node.get("%")) is not int:
        raise PirFormatError(f"{what} must be {{'%': value id, ...}}, got {node!r:.80}")
    return node["%"]


def _type(node: Any, what: str) -> PirType | None:
    try:
        return decode_type(node)
    except PirFormatError as exc:
        raise PirFormatError(f"{what}: {exc}") from None


def _list(value: Any, what: str) -> list:
    if not isinstance(value, list):
        raise PirFormatError(f"{what} must be a list")
    return value
