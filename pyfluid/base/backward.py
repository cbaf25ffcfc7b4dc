"""``paddle.base.backward``: the public autodiff API plus the helpers Paddle's code and tests
call on a block (which ops lie on the gradient path, which outputs get no gradient)."""
from __future__ import annotations

from typing import Iterable, Sequence

from ..framework.backward import append_backward, calc_gradient, gradients
from ..framework.block import Block
from ..framework.grad_pass import strip_grad_suffix as _strip_grad_suffix_
from ..framework.program import Program
from ..framework.variable import Variable
from ..ops.registry import get_op, grad_name as _append_grad_suffix_, has_op

__all__ = ["append_backward", "calc_gradient", "gradients"]


def _get_stop_gradients_(program: Program) -> dict[int, set[str]]:
    """``{block index: {'<var>@GRAD', ...}}`` for every stop_gradient variable of each block."""
    if not isinstance(program, Program):
        raise TypeError(f"_get_stop_gradients_ expects a Program, got {type(program)}")
    return {block.idx: {_append_grad_suffix_(v.name) for v in block.vars.values()
                        if v.stop_gradient}
            for block in program.blocks}


def _has_grad_maker(op) -> bool:
    opdef = op.opdef or (get_op(op.type) if has_op(op.type) else None)
    return opdef is not None and (opdef.grad_fn is not None or opdef.grad_maker is not None)


def _find_op_path_(block: Block, targets: Sequence[Variable], inputs: Sequence[Variable],
                   no_grad_set: set | None, op_path_dict: dict | None = None,
                   is_while: bool = False) -> list:
    """The ops of ``block`` through which ``targets`` depend on ``inputs`` (on any input
    when ``inputs`` is empty), in program order; ops without a grad rule are not on the path.
    With ``inputs``, stop_gradient variables read on the path but not derived from the inputs
    are added to ``no_grad_set``."""
    no_grad_set = set() if no_grad_set is None else no_grad_set
    reached = {v.name for v in inputs}
    relevant = [True] * len(block.ops)
    if inputs:
        for i, op in enumerate(block.ops):
            if reached.intersection(op.input_arg_names) and _has_grad_maker(op):
                reached.update(n for n in op.output_arg_names if n not in no_grad_set)
            else:
                relevant[i] = False
    wanted = {t.name for t in targets}
    for i in reversed(range(len(block.ops))):
        op = block.ops[i]
        if wanted.intersection(op.output_arg_names) and _has_grad_maker(op):
            wanted.update(n for n in op.input_arg_names if n not in no_grad_set)
        else:
            relevant[i] = False
    path = [op for op, keep in zip(block.ops, relevant) if keep]
    if inputs:
        for op in path:
            no_grad_set.update(n for n in op.input_arg_names
                               if n not in reached and block._var_recursive(n).stop_gradient)
    return path


def _find_no_grad_vars(block: Block, op_path: Sequence, targets: Sequence[Variable],
                       no_grad_set: Iterable[str]) -> set[str]:
    """Outputs of path ops that nothing downstream reads (so they get no gradient), except
    targets, in-place outputs and stop_gradient variables."""
    no_grad_set = set(no_grad_set or ())
    read = {t.name for t in targets}
    unused = set()
    for op in reversed(list(op_path)):
        if not op.has_attr("sub_block"):
            unused.update(n for n in op.output_arg_names
                          if n not in read and n not in op.input_arg_names
                          and not block.vars[n].stop_gradient)
        read.update(n for n in op.input_arg_names if n not in no_grad_set)
    return unused
