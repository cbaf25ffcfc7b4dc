"""Programs: a list of Blocks; block 0 is the global block."""
from __future__ import annotations

import contextlib
import hashlib
import itertools
from typing import Iterator

import struct

from ..ops.registry import ROLE_BACKWARD, ROLE_FORWARD, ROLE_LOSS, ROLE_LRSCHED, ROLE_OPTIMIZE
from . import program_state, unique_name
from .block import Block
from .desc import BlockDesc
from .desc_reader import read_program
from .operator import Operator
from .printer import program_to_text
from .prune import _names_used, keep_blocks, prune_with_input, reachable_blocks
from .serialize import (PADDLE_VERSION, CorruptProgramError, program_to_bytes,
                        program_to_text_proto)
from .variable import Parameter, Variable
from .verify import verify as verify_program
from .wire import WireError

_program_ids = itertools.count()


class ProgramDesc:
    """Paddle's ``program.desc`` / ``core.ProgramDesc``: a view of a Program (the source of
    truth). ``ProgramDesc()`` views a new empty program, ``ProgramDesc(bytes)`` a parsed one
    and ``ProgramDesc(desc)`` a copy. "Flushed" means serialized since the last change."""

    def __init__(self, program: "Program | ProgramDesc | bytes | None" = None):
        if program is None:
            program = Program()
        elif isinstance(program, (bytes, bytearray)):
            program = program_from_bytes(bytes(program))
        elif isinstance(program, ProgramDesc):
            program = program._program.clone()
        self._program = program

    def block(self, index: int) -> BlockDesc:
        return BlockDesc(self._program.blocks[index])

    def append_block(self, parent: BlockDesc) -> BlockDesc:
        """A new block whose parent is ``parent`` (the current block does not change)."""
        return BlockDesc(self._program._append_block(len(self._program.blocks), parent.id))

    def serialize_to_string(self) -> bytes:
        self.flush()
        return program_to_bytes(self._program)

    def num_blocks(self) -> int:
        return len(self._program.blocks)

    def cached_hash_str(self) -> str:
        """A hash of the serialized program: equal for identically built programs."""
        return hashlib.sha256(self.serialize_to_string()).hexdigest()

    def _set_version(self, version: int | None = None) -> None:
        self._program._version_field = PADDLE_VERSION if version is None else version
        self._program._bump()

    def flush(self) -> None:
        self._program._flushed_version = self._program._version

    def need_update(self) -> bool:
        """True when the program changed since it was last serialized or flushed."""
        return self._program._flushed_version != self._program._version


class Program:
    """A static program. ``str(program)`` is readable; ``program.desc.serialize_to_string()``
    gives Paddle's ProgramDesc bytes and ``Program.parse_from_string`` reads them back."""

    def __init__(self, _empty: bool = False):
        self.blocks: list[Block] = []
        self.current_block_idx = 0
        self._seed = 0
        self._appending_grad_times = 0
        self._current_role = ROLE_FORWARD
        self._op_role_var: list[str] = []
        # ProgramDesc.version: a fresh Paddle program carries its release; parsed ones keep theirs
        self._version_field: int | None = None if _empty else PADDLE_VERSION
        self._op_versions: list | None = None
        self._is_start_up_program_ = False
        self._converting: str | None = None   # what paddle.jit.to_static is building into it
        self.lr_scheduler = None
        self._id = next(_program_ids)
        self._version = 0          # bumped on every change; the Executor keys plans on it
        self._flushed_version = -1   # the _version last serialized (desc.need_update())
        if not _empty:
            self._append_block(0, -1)

    # -- structure --------------------------------------------------------------------------
    def _append_block(self, idx: int, parent_idx: int, forward_block_idx: int = -1) -> Block:
        block = Block(self, idx, parent_idx, forward_block_idx)
        block._has_forward_idx = False
        self.blocks.append(block)
        self._bump()
        return block

    def _bump(self) -> None:
        self._version += 1

    @property
    def desc(self) -> ProgramDesc:
        return ProgramDesc(self)

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    def global_block(self) -> Block:
        return self.blocks[0]

    def block(self, index: int) -> Block:
        return self.blocks[index]

    def current_block(self) -> Block:
        return self.blocks[self.current_block_idx]

    def _create_block(self, parent_idx: int | None = None) -> Block:
        parent = self.current_block_idx if parent_idx is None else parent_idx
        block = self._append_block(len(self.blocks), parent)
        self.current_block_idx = block.idx
        return block

    def _rollback(self) -> None:
        self.current_block_idx = self.current_block().parent_idx

    def list_vars(self) -> Iterator[Variable]:
        for block in self.blocks:
            yield from block.vars.values()

    def all_parameters(self) -> list[Parameter]:
        return [p for block in self.blocks for p in block.all_parameters()]

    @property
    def random_seed(self) -> int:
        return self._seed

    @random_seed.setter
    def random_seed(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError("Program.random_seed's input seed must be an integer, but "
                             f"received {type(seed).__name__}.")
        self._seed = seed
        self._bump()

    def _generate_var_name(self) -> str:
        return unique_name.generate("_generated_var")

    # -- roles ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _role_guard(self, role: int, role_vars: list[str] | None = None):
        old = self._current_role, self._op_role_var
        self._current_role, self._op_role_var = role, list(role_vars or [])
        try:
            yield
        finally:
            self._current_role, self._op_role_var = old

    def _optimized_guard(self, param_and_grads):
        names = [v.name if isinstance(v, Variable) else v for v in param_and_grads if v is not None]
        return self._role_guard(ROLE_OPTIMIZE, names)

    def _backward_role_guard(self):
        return self._role_guard(ROLE_BACKWARD)

    def _lr_schedule_guard(self):
        return self._role_guard(ROLE_LRSCHED)

    # -- copies -----------------------------------------------------------------------------
    def clone(self, for_test: bool = False) -> "Program":
        """A deep copy sharing variable names (so parameters are shared at run time). With
        ``for_test=True``, backward/optimizer ops are dropped and ``is_test`` is set."""
        copy = Program(_empty=True)
        copy._seed = self._seed
        copy._appending_grad_times = self._appending_grad_times
        copy._version_field, copy._op_versions = self._version_field, self._op_versions
        copy.lr_scheduler = self.lr_scheduler
        for block in self.blocks:
            new = copy._append_block(block.idx, block.parent_idx, block.forward_block_idx)
            new._has_forward_idx = block._has_forward_idx
            new.backward_block_idx = block.backward_block_idx
            for var in block.vars.values():
                new.vars[var.name] = _copy_var(var, new)
            for op in block.ops:
                new.ops.append(_copy_op(op, new))
        if for_test:
            copy._prune_backward()
        copy._link_producers()
        return copy

    def _prune_backward(self) -> None:
        dropped = ROLE_BACKWARD | ROLE_OPTIMIZE | ROLE_LRSCHED
        if not any(op.role == (ROLE_BACKWARD | ROLE_LOSS) for b in self.blocks for op in b.ops):
            self._inference_optimize()
            return
        for block in self.blocks:
            block.ops = [op for op in block.ops if not op.role & dropped]
        reachable = reachable_blocks(self)   # grad blocks go with their grad ops
        keep_blocks(self, [b.idx for b in self.blocks
                           if b.idx in reachable or b.forward_block_idx < 0])
        for block in self.blocks:    # a var read only inside a sub-block (control flow) stays
            used = {n for op in block.ops for n in _names_used(self, op)}
            block.vars = {k: v for k, v in block.vars.items() if k in used}
        self._inference_optimize()

    def _inference_optimize(self, prune_read_op: bool = True) -> None:
        for block in self.blocks:
            for op in block.ops:
                if "is_test" in op.attrs or (op.opdef and "is_test" in op.opdef.attrs):
                    op._set_attr("is_test", True)
                if op.type == "batch_norm":
                    op.outputs.pop("ReserveSpace", None)
        self._bump()

    def _link_producers(self) -> None:
        for block in self.blocks:
            for op in block.ops:
                for name in op.output_arg_names:
                    var = block.vars.get(name)
                    if var is not None:
                        var.op = op

    def _copy_param_info_from(self, other: "Program") -> None:
        """Make the variables named like ``other``'s parameters Parameters with the same
        trainable, optimize_attr, regularizer and clip settings (Paddle's clone helper)."""
        if not isinstance(other, Program):
            raise TypeError("Function Program._copy_param_info_from() needs to pass in a source "
                            f"Program, but received {type(other)}")
        block = self.global_block()
        for param in other.global_block().all_parameters():
            var = block.vars.get(param.name)
            if var is None or isinstance(var, Parameter):
                continue
            new = _copy_var(param, block)
            new._shape, new._dtype = var._shape, var._dtype
            block.vars[param.name] = new
        self._link_producers()

    def _copy_dist_param_info_from(self, other: "Program") -> None:
        """Copy the distributed-training markers of ``other`` (none unless a transpiler set
        them)."""
        if not isinstance(other, Program):
            raise TypeError("Function Program._copy_param_info_from() needs to pass in a source "
                            f"Program, but received {type(other)}")
        for name in ("_is_distributed", "_is_chief", "_parameters_on_pservers", "_endpoints",
                     "_ps_endpoint", "_distributed_lookup_table"):
            if hasattr(other, name):
                setattr(self, name, getattr(other, name))

    def _sync_with_cpp(self) -> None:
        """Nothing to do: ``program.desc`` is a view of this Program, never a copy."""

    # -- pruning and state ------------------------------------------------------------------
    def _prune_with_input(self, feeded_var_names, targets) -> "Program":
        return prune_with_input(self, feeded_var_names, targets)

    def _prune(self, targets) -> "Program":
        return self._prune_with_input([], targets)

    def state_dict(self, mode: str = "all", scope=None) -> dict:
        """``{name: LoDTensor}`` of parameters ('param'), optimizer vars ('opt') or both."""
        return program_state.state_dict(self, mode, scope)

    def set_state_dict(self, state_dict: dict, scope=None) -> None:
        program_state.set_state_dict(self, state_dict, scope)

    # -- bytes and text ---------------------------------------------------------------------
    @staticmethod
    def parse_from_string(binary: bytes) -> "Program":
        return program_from_bytes(binary)

    def __str__(self) -> str:
        return program_to_text(self)

    def _to_readable_code(self) -> str:
        return str(self)

    def to_string(self, throw_on_error: bool = False, with_details: bool = False) -> str:
        return program_to_text_proto(self)

    def debug_string(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        ops = sum(len(b.ops) for b in self.blocks)
        return f"<Program {self._id}: {len(self.blocks)} block(s), {ops} op(s)>"

    def verify(self) -> None:
        verify_program(self)


def _copy_var(var: Variable, block: Block) -> Variable:
    if isinstance(var, Parameter):
        new = Parameter(block, var.name, var.shape, var.dtype, trainable=var.trainable,
                        optimize_attr=dict(var.optimize_attr), regularizer=var.regularizer,
                        need_clip=var.need_clip, lod_level=var._lod_level)
        new._stop_gradient = var._stop_gradient        # set apart from trainable by the user
        new.do_model_average, new.is_distributed = var.do_model_average, var.is_distributed
    else:
        new = Variable(block, var.name, type=var.type, persistable=var.persistable,
                       stop_gradient=var.stop_gradient, is_data=var.is_data,
                       need_check_feed=var.need_check_feed, lod_level=var._lod_level,
                       belong_to_optimizer=var.belong_to_optimizer)
    new._shape, new._dtype = var._shape, var._dtype
    new.desc_attrs = list(var.desc_attrs)
    new.has_stop_gradient, new.has_is_parameter = var.has_stop_gradient, var.has_is_parameter
    new.has_persistable = var.has_persistable
    return new


def _copy_op(op: Operator, block: Block) -> Operator:
    attrs = {k: (list(v) if isinstance(v, list) else v) for k, v in op.attrs.items()}
    new = Operator(block, op.type, {k: list(v) for k, v in op.inputs.items()},
                   {k: list(v) for k, v in op.outputs.items()}, attrs, dict(op.attr_types),
                   op.is_target, op.site)
    origin = getattr(op, "fused_from", None)     # a pass's op: the ops the user built
    if origin:
        new.fused_from = origin
    return new


def program_from_bytes(data: bytes, source: str = "<bytes>") -> Program:
    """Parse ProgramDesc bytes into a Program; malformed input raises CorruptProgramError
    naming ``source`` (a file name, or ``<bytes>``)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse_from_string expects bytes, got {type(data).__name__}")
    data = bytes(data)
    try:
        return read_program(data, Program)
    except (WireError, ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError,
            struct.error) as exc:
        raise CorruptProgramError(f"{source} ({len(data)} bytes) is not a valid Paddle "
                                  f"ProgramDesc (.pdmodel): {exc}. The file may be truncated "
                                  "or not a program at all.") from None
