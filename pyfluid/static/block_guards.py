"""Building a sub-block: ``ConditionalBlock`` and ``While`` (``with x.block(): ...``), as
Paddle 2.6's ``paddle.static.nn.control_flow`` builds them.

Inside the ``with``, ops go to a new block of the program (its parent is the block that was
current). On exit the op that runs the block is appended to the parent, its slots computed
from what the block's ops read and write: ``Input``/``X`` are the outer variables the block
reads before writing them (nested control flow included, through its own slots), ``Out`` the
outer variables it writes. Paddle builds these lists from Python sets; pyfluid keeps them in
first-use order so that a program is built the same way every time.
"""
from __future__ import annotations

from functools import reduce
from typing import Sequence

from ..framework.layer_helper import LayerHelper, check_dtype, check_type
from ..framework.program import Program
from ..framework.variable import Variable
from ..ops.types import VarType


class BlockGuard:
    """``with BlockGuard(program):`` appends ops to a new sub-block of ``program``."""

    def __init__(self, main_program: Program):
        if not isinstance(main_program, Program):
            raise TypeError("BlockGuard takes a program")
        self.main_program = main_program

    def __enter__(self):
        self.main_program._create_block()

    def __exit__(self, exc_type, exc_val, exc_tb) -> bool:
        self.main_program._rollback()
        return exc_type is None


def block_inputs_outputs(block) -> tuple[list[str], list[str]]:
    """``(inputs, outputs)`` of a block's ops in first-use order: the names read before the
    block writes them, and every name written. Arrays created in the block are not inputs."""
    inputs, outputs = {}, {}
    for op in block.ops:
        for name in op.input_arg_names:
            if name not in outputs:
                inputs.setdefault(name)
        for name in op.output_arg_names:
            outputs.setdefault(name)
    parent = block.program.block(block.parent_idx)
    local_arrays = {name for name in inputs if parent._find_var_recursive(name) is None
                    and name in block.vars and block.vars[name].type == VarType.LOD_TENSOR_ARRAY}
    return [n for n in inputs if n not in local_arrays], list(outputs)


class ConditionalBlock:
    """A block run when its condition holds: ``conditional_block`` (Paddle's
    ``paddle.static.nn.control_flow.ConditionalBlock``). With ``is_scalar_condition`` the
    one-element bool ``inputs[0]`` decides; otherwise the block runs when no input is empty."""

    def __init__(self, inputs: Sequence[Variable], is_scalar_condition: bool = False,
                 name: str | None = None):
        for each_input in inputs:
            check_type(each_input, "input", Variable, "ConditionalBlock")
        self.inputs = list(inputs)
        self.is_scalar_condition = is_scalar_condition
        self.helper = LayerHelper("conditional_block", name=name)

    def block(self) -> "ConditionalBlockGuard":
        return ConditionalBlockGuard(self)

    def complete(self) -> None:
        program = self.helper.main_program
        inside = program.current_block()
        parent = program.block(inside.parent_idx)
        params, written = block_inputs_outputs(inside)
        inputs = [parent._var_recursive(name) for name in params]
        outs = [v for v in (parent._find_var_recursive(n) for n in written) if v is not None]
        scope = parent.create_var(type=VarType.STEP_SCOPES)
        parent.append_op(type="conditional_block",
                         inputs={"Cond": self.inputs, "Input": inputs},
                         outputs={"Out": outs, "Scope": [scope]},
                         attrs={"sub_block": inside, "is_scalar_condition": self.is_scalar_condition,
                                "skip_eager_deletion_vars": []})


class ConditionalBlockGuard(BlockGuard):
    def __init__(self, block: ConditionalBlock):
        check_type(block, "block", ConditionalBlock, "ConditionalBlockGuard")
        super().__init__(block.helper.main_program)
        self.block = block

    def __exit__(self, exc_type, exc_val, exc_tb) -> bool:
        if exc_type is None:
            self.block.complete()
        return super().__exit__(exc_type, exc_val, exc_tb)


class While:
    """A loop running its block while ``cond`` (a one-element bool Variable) is true; the block
    must update ``cond`` itself (``paddle.assign(less_than(i, n), output=cond)``). Variables
    the block creates are local to one step: ``paddle.assign(v, output=outer)`` carries a
    value out (Paddle's ``paddle.static.nn.control_flow.While``)."""

    BEFORE_WHILE_BLOCK, IN_WHILE_BLOCK, AFTER_WHILE_BLOCK = 0, 1, 2

    def __init__(self, cond: Variable, is_test: bool = False, name: str | None = None):
        self.helper = LayerHelper("while", name=name)
        self.status = While.BEFORE_WHILE_BLOCK
        check_type(cond, "cond", Variable, "static.nn.While")
        check_dtype(cond.dtype, "cond", ["bool"], "static.nn.While")
        if reduce(lambda a, b: a * b, cond.shape, 1) != 1:
            raise TypeError(f"condition expected shape as [1], but given shape as "
                            f"{list(cond.shape)}.")
        self.cond_var = cond
        self.is_test = is_test

    def block(self) -> "WhileGuard":
        return WhileGuard(self)

    def _complete(self) -> None:
        program = self.helper.main_program
        body = program.current_block()
        parent = program.block(body.parent_idx)
        params, written = block_inputs_outputs(body)
        written = [self.cond_var.name] + [n for n in written if n != self.cond_var.name]
        outs = [v for v in (parent._find_var_recursive(n) for n in written) if v is not None]
        x_names = [n for n in dict.fromkeys(params + [v.name for v in outs])
                   if n != self.cond_var.name]     # the condition is the Condition slot
        scope = parent.create_var(type=VarType.STEP_SCOPES)
        parent.append_op(type="while",
                         inputs={"X": [parent._var_recursive(n) for n in x_names],
                                 "Condition": [self.cond_var]},
                         outputs={"Out": outs, "StepScopes": [scope]},
                         attrs={"sub_block": body, "is_test": self.is_test,
                                "skip_eager_deletion_vars": []})


class WhileGuard(BlockGuard):
    def __init__(self, while_op: While):
        if not isinstance(while_op, While):
            raise TypeError("WhileGuard takes a while op")
        super().__init__(while_op.helper.main_program)
        self.while_op = while_op

    def __enter__(self):
        self.while_op.status = While.IN_WHILE_BLOCK
        return super().__enter__()

    def __exit__(self, exc_type, exc_val, exc_tb) -> bool:
        if exc_type is not None:
            return super().__exit__(exc_type, exc_val, exc_tb)
        self.while_op.status = While.AFTER_WHILE_BLOCK
        self.while_op._complete()
        return super().__exit__(exc_type, exc_val, exc_tb)
