"""Control flow compiled into a plan: ``conditional_block`` becomes an ``if`` and ``while`` a
``while`` loop around the sub-block's code, inside the one generated function; their grad ops
become an ``if`` and a loop over the recorded steps around the grad block's code.

Each sub-block runs in a frame (executor/frames.py): the child scope Paddle would create, held
in Python locals. A forward ``while`` whose steps a ``while_grad`` replays records, at the end
of each iteration, a tuple of the values that the grad block reads from that iteration (body
temporaries, and the loop variables as they were when the step started: Paddle's step scopes);
the grad loop unpacks each tuple, newest first, into the same locals. Nothing is recorded for
``is_test`` loops or when no grad op needs the steps.

Semantics are Paddle 2.6's (docs/control_flow.md), with two fixes to gradients Paddle gets wrong:
an untaken branch passes the gradient of a variable it would have overwritten through instead
of zeroing it, and a ``while_grad`` over zero steps gives zero gradients to the loop's
read-only inputs instead of leaving them unset.
"""
from __future__ import annotations

import os

import numpy as np

from ..framework.errors import ExecutionError
from ..ops.control_flow import BLOCK_OPS
from ..ops.registry import EMPTY_VAR, grad_name
from ..ops.tensor_array import sum_arrays
from ..ops.types import VarType
from .frames import declared_locals

__all__ = ["BLOCK_OPS", "BlockIndex", "EMITTERS", "MAX_WHILE_STEPS", "StepRecord", "moved_assign",
           "step_record"]

# A loop that has run this many steps is taken for a runaway (a condition that stays true):
# an error, not a hang. PYFLUID_MAX_WHILE_STEPS raises the limit.
MAX_WHILE_STEPS = int(os.environ.get("PYFLUID_MAX_WHILE_STEPS", 10_000_000))


# -- run-time helpers (bound into the plan's namespace) -----------------------------------------
def scalar_condition(cond) -> bool:
    if cond is None or np.size(cond) != 1 or np.asarray(cond).dtype != np.bool_:
        numel = 0 if cond is None else np.size(cond)
        raise ValueError("(InvalidArgument) condition input's data type should be bool, numel "
                         f"should be 1, actual numel is {numel}")
    return bool(np.asarray(cond).reshape(-1)[0])


def inputs_nonempty(values) -> bool:
    """``is_scalar_condition=False``: the block runs when no input is empty."""
    return all(v is not None and (len(v) if isinstance(v, list) else np.size(v)) != 0
               for v in values)


def check_while_condition(cond) -> None:
    if cond is None or np.size(cond) != 1:
        numel = 0 if cond is None else np.size(cond)
        raise ValueError("(InvalidArgument) The numel of Input(Condition) of WhileOp must be 1. "
                         f"But now the Condition's numel is {numel}.")


def zeros_like(value):
    """Zeros shaped like a forward value (an array gives an array of zeros); None for a value
    that is unset or empty (Paddle leaves such a gradient alone)."""
    if isinstance(value, list):
        return [None if v is None else np.zeros_like(v) for v in value]
    if value is None or np.size(value) == 0:
        return None
    return np.zeros_like(value)


def local_grad(inside, forward):
    """The gradient a grad block left in its scope, or zeros when it wrote none."""
    return inside if inside is not None else zeros_like(forward)


def accumulate(total, step):
    """``total + step`` of a read-only loop input's gradient over the steps."""
    if step is None:
        return total
    if total is None:
        return step
    if isinstance(step, list):
        return sum_arrays([total, step])
    return total + step


def runaway(op_text: str) -> ExecutionError:
    return ExecutionError(
        f"a while loop ran {MAX_WHILE_STEPS} steps without its condition becoming false "
        f"(an infinite loop?):\n  {op_text}\nSet PYFLUID_MAX_WHILE_STEPS to allow more steps.")


RUNTIME = {"_scalar_condition": scalar_condition, "_inputs_nonempty": inputs_nonempty,
           "_check_while_condition": check_while_condition, "_zeros_like": zeros_like,
           "_local_grad": local_grad, "_accumulate": accumulate, "_runaway": runaway,
           "_WHILE_STEPS": range(MAX_WHILE_STEPS)}


# -- what a forward while records for its grad ------------------------------------------------
class StepRecord:
    """What each step of a forward ``while`` keeps for ``while_grad``: ``snapshots`` (loop
    inputs as they were when the step started) and ``values``, ``(tag, name)`` slots of the
    body and of the branches nested in it; in that order in each recorded tuple."""

    def __init__(self, body_tag: int, snapshots: list[str], values: list[tuple[int, str]]):
        self.body_tag = body_tag
        self.snapshots = snapshots
        self.values = values

    def slots(self) -> list[tuple[int, str]]:
        return [(self.body_tag, n) for n in self.snapshots] + self.values


def names_read(block) -> set[str]:
    """Every name an op of ``block`` or of a block nested in it reads."""
    names, seen, todo = set(), set(), [block]
    while todo:
        b = todo.pop()
        if b.idx in seen:
            continue
        seen.add(b.idx)
        for op in b.ops:
            names.update(op.input_arg_names)
            todo.extend(sub_blocks(op))
    return names


def sub_blocks(op) -> list:
    """The blocks an op names through BLOCK attributes (valid indices only)."""
    blocks = op.block.program.blocks
    index = op.attrs.get("sub_block")
    return [blocks[index]] if op.type in BLOCK_OPS and isinstance(index, int) \
        and 0 < index < len(blocks) else []


def forward_block(op):
    """The block a forward control-flow op runs (None without one)."""
    blocks = sub_blocks(op) if op is not None else []
    return blocks[0] if blocks else None


def _branch_blocks(body) -> list:
    """The body and the branches nested in it (not nested loops: they record their own)."""
    found, todo = [], [body]
    while todo:
        b = todo.pop()
        found.append(b)
        todo.extend(s for op in b.ops if op.type == "conditional_block" for s in sub_blocks(op)
                    if s not in found and s not in todo)
    return found


def step_record(op, grad_ops: list) -> StepRecord | None:
    """The record a forward ``while`` keeps per step for ``grad_ops`` (its while_grad ops)."""
    if op.attrs.get("is_test") or not grad_ops or not sub_blocks(op):
        return None
    body = sub_blocks(op)[0]
    reads = set()
    for grad in grad_ops:
        for block in sub_blocks(grad):
            reads |= names_read(block)
    global_block = op.block.program.global_block()
    in_place = {n for o in body.ops for n in set(o.input_arg_names) & set(o.output_arg_names)}
    snapshots = []
    for name in dict.fromkeys(op.input("X")):
        var = op.block._find_var_recursive(name)
        param = global_block.vars.get(name)
        if (name in reads and name not in in_place and var is not None
                and var.type == VarType.LOD_TENSOR and not (param and param.is_parameter)):
            snapshots.append(name)
    values = [(b.idx, n) for b in _branch_blocks(body) for n in sorted(declared_locals(b) & reads)]
    return StepRecord(body.idx, snapshots, values)


class BlockIndex:
    """What a plan looks up about a program's blocks while it compiles them."""

    def __init__(self, program):
        self.program = program
        self._compiled: set[int] = set()
        self._scope_writers: dict | None = None
        self._records: dict[int, StepRecord | None] = {}

    def all_ops(self):
        return (op for b in self.program.blocks for op in b.ops)

    def sub_block(self, op):
        """The block ``op`` runs; each block compiles once, which also rules out cycles."""
        blocks = sub_blocks(op)
        if not blocks or blocks[0].idx in self._compiled or blocks[0] is op.block:
            why = ("is not a block of this program" if not blocks else
                   "is the op's own block" if blocks[0] is op.block else
                   "is already run by another op (a cycle or a shared block)")
            raise ExecutionError(f"op '{op.type}' of block {op.block.idx}: sub_block "
                                 f"{op.attrs.get('sub_block')!r} {why}; the program is "
                                 "malformed (program.verify() lists its problems).")
        self._compiled.add(blocks[0].idx)
        return blocks[0]

    def forward_op(self, scope_names: list[str]):
        """The conditional_block / while op whose Scope / StepScopes output is named here."""
        if self._scope_writers is None:
            self._scope_writers = {n: op for op in self.all_ops()
                                   if op.type in ("while", "conditional_block")
                                   for n in op.output("Scope") + op.output("StepScopes")}
        return next((self._scope_writers[n] for n in scope_names if n in self._scope_writers),
                    None)

    def step_record(self, op) -> StepRecord | None:
        """What a forward while records per step for the while_grad ops replaying it."""
        if id(op) not in self._records:
            steps = set(op.output("StepScopes"))
            grads = [g for g in self.all_ops() if g.type == "while_grad"
                     and steps & set(g.input("StepScopes"))]
            self._records[id(op)] = step_record(op, grads)
        return self._records[id(op)]


def moved_assign(plan, op, frame, last_read: dict, position: int, kept) -> tuple | None:
    """``(line, input locals)`` for an ``assign`` in a sub-block from a local of its frame
    that nothing reads later (a loop body carrying a new value into its loop variable, a
    branch its result out): the value moves instead of being copied. Kernels never write into
    their inputs and sub-blocks run no in-place kernels, so sharing the array is safe."""
    if op.type != "assign" or frame.parent is None or len(op.input("X")) != 1:
        return None
    src, dst = op.input("X")[0], op.output("Out")[0]
    if (src not in frame.names or src not in frame.written or src in kept
            or last_read.get(src, -1) > position or dst == EMPTY_VAR
            or plan._is_persistable(dst)):
        return None
    value = frame.read(src)
    where = f"b{op.block.idx}#{op.block.ops.index(op)}"
    return f"{frame.write(dst)} = {value}  # {where} assign (moved)", {src: value}


# -- emitters: op -> lines of the generated function -----------------------------------------------
def _need_run(op, frame) -> str:
    if op.attrs.get("is_scalar_condition"):
        conds = op.input("Cond")
        if len(conds) != 1:
            raise ExecutionError(f"{op.type} with is_scalar_condition needs one Cond variable, "
                                 f"got {conds}:\n  {str(op).strip()}")
        return f"_scalar_condition({frame.read(conds[0])})"
    values = ", ".join(frame.read(n) for n in op.input("Input") if n != EMPTY_VAR)
    return f"_inputs_nonempty(({values}{',' if values else ''}))"


def _body(lines: list[str], pad: str) -> list[str]:
    return lines or [pad + "pass"]


def emit_conditional_block(plan, op, frame, pad: str) -> list[str]:
    block = plan.flow.sub_block(op)
    inner = frame.child(block.idx, declared_locals(block), blocks=[block])
    test = _need_run(op, frame)
    body = plan.emit_ops(block.ops, inner, pad + "    ")
    return [f"{pad}if {test}:"] + _body(inner.init_lines(pad + "    ") + body, pad + "    ")


def emit_conditional_block_grad(plan, op, frame, pad: str) -> list[str]:
    grad_block = plan.flow.sub_block(op)
    forward = plan.flow.forward_op(op.input("Scope"))
    fwd_block = forward_block(forward)
    fwd_names = declared_locals(fwd_block) if fwd_block is not None else set()
    grad_names = declared_locals(grad_block)
    # the grad block runs in the forward branch's scope; the gradients it writes are its own
    written = {n for o in grad_block.ops for n in o.output_arg_names} - fwd_names
    inner = frame.child(fwd_block.idx if fwd_block is not None else grad_block.idx,
                        fwd_names | grad_names | written, fallthrough=(grad_names | written)
                        - fwd_names, blocks=[grad_block] + ([fwd_block] if fwd_block else []))
    inner.written |= fwd_names
    test = _need_run(op, frame)
    inside = pad + "    "
    body = plan.emit_ops(grad_block.ops, inner, inside)
    taken, untaken = [], []
    passing = set(op.input("Out@GRAD"))
    for x, outside in zip(op.input("Input"), op.output("Input@GRAD")):
        if outside == EMPTY_VAR:
            continue
        x_value = frame.read(x, soft=True)
        name = grad_name(x)
        grad = inner.read(name) if inner.holds(name) else None
        target = frame.write(outside, definite=False)
        taken.append(f"{inside}{target} = " + (f"_local_grad({grad}, {x_value})" if grad
                                                  else f"_zeros_like({x_value})"))
        if outside not in passing:   # a variable the branch overwrites keeps its gradient
            untaken.append(f"{inside}{target} = _zeros_like({x_value})")
    lines = [f"{pad}if {test}:"] + _body(inner.init_lines(inside) + body + taken, inside)
    if untaken:
        lines += [f"{pad}else:"] + untaken
    return lines


def emit_while(plan, op, frame, pad: str) -> list[str]:
    body = plan.flow.sub_block(op)
    inner = frame.child(body.idx, declared_locals(body), blocks=[body])
    condition = op.input("Condition")
    if len(condition) != 1:
        raise ExecutionError(f"while needs one Condition variable, got {condition}:\n  "
                             f"{str(op).strip()}")
    cond = frame.read(condition[0])
    record = plan.flow.step_record(op)
    step, loop = pad + "    ", pad + "        "
    lines = [f"{pad}_check_while_condition({cond})"]
    steps = None
    if record is not None and op.output("StepScopes"):
        steps = frame.write(op.output("StepScopes")[0])
        lines.append(f"{pad}{steps} = []")
    head = [f"{pad}for _ in _WHILE_STEPS:", f"{step}if not {cond}.item(0):", f"{loop}break"]
    start, end = [], []
    if steps is not None:
        tag = body.idx
        start += [f"{step}{plan.slot(tag, n)} = {frame.read(n)}" for n in record.snapshots]
        always = {n for o in body.ops if o.type not in BLOCK_OPS for n in o.output_arg_names}
        start += [f"{step}{plan.slot(t, n)} = None" for t, n in record.values   # may stay unset
                  if not (t == tag and n in always)]
        recorded = ", ".join(plan.slot(t, n) for t, n in record.slots())
        end.append(f"{step}{steps}.append(({recorded}{',' if record.slots() else ''}))")
    kept = frozenset(n for t, n in record.values if t == body.idx) if steps is not None \
        else frozenset()
    code = plan.emit_ops(body.ops, inner, step, kept=kept)
    text = plan.label("_op")
    plan.namespace[text] = str(op).strip()
    tail = [f"{pad}else:", f"{step}raise _runaway({text})"]
    return lines + head + start + inner.init_lines(step) + code + end + tail


def emit_while_grad(plan, op, frame, pad: str) -> list[str]:
    if op.attrs.get("is_test"):
        plan.namespace["_while_is_test"] = ValueError(
            "(InvalidArgument) WhileGradOp is only callable when is_test is false.")
        return [f"{pad}raise _while_is_test"]
    grad_block = plan.flow.sub_block(op)
    forward = plan.flow.forward_op(op.input("StepScopes"))
    record = plan.flow.step_record(forward) if forward is not None else None
    if record is None:
        raise ExecutionError("while_grad finds no forward while recording its steps "
                             f"(StepScopes {op.input('StepScopes')}):\n  {str(op).strip()}")
    fwd_body = forward_block(forward)
    tag = fwd_body.idx
    og_out, og_in = op.input("Out@GRAD"), list(op.attrs.get("original_output_grad") or [])
    if len(og_in) != len(og_out):
        og_in = list(og_out)
    carried = [n for n in declared_locals(fwd_body)] + record.snapshots + og_in
    inner = frame.child(tag, set(carried) | declared_locals(grad_block),
                        blocks=[grad_block, fwd_body])
    inner.written |= {n for t, n in record.slots() if t == tag} | set(og_in)
    steps = frame.read(op.input("StepScopes")[0])
    step = pad + "    "
    unpack = ", ".join(plan.slot(t, n) for t, n in record.slots())
    lines, after = [], []
    outs = {grad_name(o): o for o in op.input("Out")}
    copy_in = []
    for outside, local in zip(og_out, og_in):
        value = frame.read(outside, soft=True)
        forward_value = frame.read(outs[outside], soft=True) if outside in outs else "None"
        copy_in.append(f"{step}{plan.slot(tag, local)} = {value} if {value} is not None "
                       f"else _zeros_like({forward_value})")
    body = plan.emit_ops(grad_block.ops, inner, step)
    outputs = []
    passing = set(og_out)
    for index, (x, outside) in enumerate(zip(op.input("X"), op.output("X@GRAD"))):
        if outside == EMPTY_VAR:
            continue
        inside = inner.read(grad_name(x))
        if outside in passing:            # a loop-carried variable: the step's gradient
            outputs.append(f"{step}{frame.write(outside, definite=False)} = {inside}")
            continue
        total = plan.label("_total")      # a read-only input: summed over the steps
        lines.append(f"{pad}{total} = None")
        outputs.append(f"{step}{total} = _accumulate({total}, {inside})")
        x_value = frame.read(x, soft=True)
        after.append(f"{pad}{frame.write(outside, definite=False)} = {total} if {total} is not "
                     f"None else _zeros_like({x_value})")
    loop = [f"{pad}for ({unpack}{',' if record.slots() else ''}) in reversed({steps}):"]
    return (lines + loop + _body(copy_in + inner.init_lines(step) + body + outputs, step)
            + after + [f"{pad}{steps}.clear()"])


EMITTERS = {"conditional_block": emit_conditional_block,
            "conditional_block_grad": emit_conditional_block_grad,
            "while": emit_while, "while_grad": emit_while_grad}
