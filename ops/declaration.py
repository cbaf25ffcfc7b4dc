"""The vocabulary of op declarations: slots, attribute specs, the aliasing facts, op roles and
gradient names. ``registry.py`` builds ``OpDef`` from these and re-exports the public names."""
from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from .types import AttrType, attr_type_of, coerce_attr

GRAD_SUFFIX = "@GRAD"
EMPTY_VAR = "@EMPTY@"

# Op roles (Paddle's OpRole bit flags).
ROLE_FORWARD, ROLE_BACKWARD, ROLE_OPTIMIZE, ROLE_LRSCHED = 0x0000, 0x0001, 0x0002, 0x0010
ROLE_LOSS, ROLE_NOT_SPECIFIED = 0x0100, 0x1000


def grad_name(name: str) -> str:
    """The gradient variable of ``name``: ``x`` -> ``x@GRAD``."""
    return name + GRAD_SUFFIX


class Slot(NamedTuple):
    name: str
    duplicable: bool = False
    dispensable: bool = False
    extra: bool = False         # Paddle's AsExtra(): dropped from saved inference programs


# What an op's outputs may share a buffer with (``OpDef.aliasing``).
FRESH, VIEWS, ANY = "fresh", "views", "any"


class Aliasing(NamedTuple):
    """What the outputs of an op's (pure) kernel may share a buffer with, derived from its
    declaration. The Executor's one alias model (executor/aliasing.py) reads only this, and
    tests/test_op_aliasing.py runs every registered kernel to check it.

    ``kind``:

    * ``FRESH`` (the default): kernels are pure and return arrays that share no buffer with
      the op's inputs.
    * ``VIEWS``: outputs may be views of the first input (``views_input=True``).
    * ``ANY``: outputs may be anything, an input itself included: py_func (user code,
      ``def_op_kernel``), ops declared ``may_alias=True``, and grad ops derived by ``def_grad``,
      whose identity gradients return the incoming gradient ``<Out>@GRAD`` (or a view of it).

    ``sources``: the input slots the outputs may share a buffer with (empty for ``FRESH``;
    the first input for ``VIEWS``; the ``@GRAD`` slots for a derived grad op, every input slot
    otherwise). ``inplace`` (``def_inplace_kernel(ParamOut="Param")``):
    output slot -> the input slot whose buffer the in-place kernel writes; the pure kernel's
    result for such a slot shares a buffer with that input at most. ``owned``
    (``fresh_outputs=True``): every output is a newly allocated, writable array of its own,
    so a later in-place kernel may overwrite it (buffer reuse)."""
    kind: str
    sources: tuple = ()
    inplace: dict = {}
    owned: bool = False

    def output_sources(self, out_slot: str) -> tuple:
        """The input slots that output slot ``out_slot`` may share a buffer with."""
        if self.kind == FRESH:
            return ()
        paired = self.inplace.get(out_slot)
        return (paired,) if paired is not None else self.sources


class AttrSpec(NamedTuple):
    type: AttrType
    default: Any


# Attributes every op may carry (Paddle's OpProtoAndCheckerMaker); kernels never see them.
COMMON_ATTRS = {
    "op_role": AttrSpec(AttrType.INT, ROLE_FORWARD),
    "op_role_var": AttrSpec(AttrType.STRINGS, []),
    "op_namescope": AttrSpec(AttrType.STRING, "/"),
    "op_callstack": AttrSpec(AttrType.STRINGS, []),
    "op_device": AttrSpec(AttrType.STRING, ""),
    "with_quant_attr": AttrSpec(AttrType.BOOLEAN, False),
}


def parse_slot(spec: str) -> Slot:
    name = spec.rstrip("*?")
    suffix = spec[len(name):]
    return Slot(name, "*" in suffix, "?" in suffix)


def mark_extra(op_type: str, slots: tuple, extra: Sequence[str]) -> tuple:
    """Output slots with those named in ``extra`` marked extra (and so dispensable)."""
    unknown = set(extra) - {s.name for s in slots}
    if unknown:
        raise ValueError(f"op '{op_type}': extra_outputs {sorted(unknown)} are not output slots "
                         f"(declared: {[s.name for s in slots]})")
    return tuple(s._replace(dispensable=True, extra=True) if s.name in extra else s for s in slots)


def slot_names(slots: tuple) -> tuple:
    return tuple(s.name for s in slots)


def declared_aliasing(inputs: tuple, views_input: bool, fresh_outputs: bool,
                       may_alias: bool) -> Aliasing:
    """``OpDef.aliasing`` from the declaration keywords."""
    if may_alias:
        return Aliasing(ANY, slot_names(inputs))
    if views_input:
        return Aliasing(VIEWS, slot_names(inputs[:1]))
    return Aliasing(FRESH, (), {}, bool(fresh_outputs))


def parse_attr(name: str, spec: Any) -> AttrSpec:
    """The declared type and default; the default in the form ops store (FLOAT: float32)."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], AttrType):
        attr_type, default = spec
    else:
        attr_type, default = attr_type_of(spec), spec
    return AttrSpec(attr_type, coerce_attr(default, attr_type) if default is not None else None)
