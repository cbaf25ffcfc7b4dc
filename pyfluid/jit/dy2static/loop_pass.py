"""Loops: ``break``/``continue`` become flags, and ``for`` becomes ``while``.

Run after the return pass, inner loops first. In a loop body:

* ``break`` -> ``__break_n = True``, and the loop's condition becomes
  ``not __break_n and <condition>``; ``continue`` -> ``__continue_n = True`` (reset at the
  start of every iteration). The statements after one that may set a flag run under
  ``if not __break_n and not __continue_n:``. A loop's ``else`` runs under ``if not
  __break_n``.
* ``for target in iterable: body`` ->

      __iter_n = _jst.iter_start(iterable)
      for __index_n in __iter_n:
          target = _jst.iter_item(__iter_n, __index_n)
          body

  which the block pass hands to ``_jst.convert_for``: a Python iterable is walked item by
  item (the loop stays a Python loop); a Tensor (its first axis) of unknown length, or a
  ``range`` with a Tensor bound, becomes a ``while_loop`` over the index.
"""
from __future__ import annotations

import ast

from .ast_build import NameGen, assign, const, jst_call, load, located, located_all, store
from .names import SCOPES, nested_bodies

LOOPS = (ast.While, ast.For)


def _walk_body(stmts: list[ast.stmt]):
    """Nodes of ``stmts`` in this loop: nested loops and scopes are not entered."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, LOOPS + SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _jumps(stmts: list[ast.stmt]) -> set[type]:
    return {type(n) for n in _walk_body(stmts) if isinstance(n, (ast.Break, ast.Continue))}


class LoopPass:
    def __init__(self, names: NameGen):
        self.names = names

    def run(self, fdef: ast.FunctionDef) -> None:
        fdef.body = self._block(fdef.body)

    def _block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            if isinstance(stmt, LOOPS):
                out.extend(self._loop(stmt))
                continue
            blocks = [(stmt, "body"), (stmt, "orelse")] if isinstance(stmt, ast.If) else \
                nested_bodies(stmt)
            for holder, field in blocks:
                setattr(holder, field, self._block(getattr(holder, field)))
            out.append(stmt)
        return out

    def _loop(self, loop: ast.While | ast.For) -> list[ast.stmt]:
        loop.body = self._block(loop.body)
        orelse = self._block(loop.orelse)
        jumps = _jumps(loop.body)
        brk = self.names.fresh("break") if ast.Break in jumps else None
        cont = self.names.fresh("continue") if ast.Continue in jumps else None
        body = _Lowering(brk, cont).block(loop.body)
        pre: list[ast.stmt] = []
        if brk:
            pre.append(assign(brk, const(False)))
        if cont:
            body.insert(0, assign(cont, const(False)))
        if isinstance(loop, ast.For):
            iterator, index = self.names.fresh("iter"), self.names.fresh("index")
            pre.append(assign(iterator, jst_call("iter_start", loop.iter)))
            item = ast.Assign(targets=[loop.target], value=jst_call(
                "iter_item", load(iterator), load(index)))
            new_loop = ast.For(target=store(index), iter=load(iterator),
                               body=[located(item, loop.target)] + body, orelse=[],
                               type_comment=None)
            new_loop.break_flag = brk           # the block pass hands it to convert_for
        else:
            test = loop.test
            if brk:
                test = ast.BoolOp(op=ast.And(), values=[_not(brk), test])
            new_loop = ast.While(test=test, body=body, orelse=[])
        post: list[ast.stmt] = []
        if orelse:
            post = [ast.If(test=_not(brk), body=orelse, orelse=[])] if brk else orelse
        return located_all(pre, loop) + [located(new_loop, loop)] + located_all(post, loop)


def _not(name: str) -> ast.UnaryOp:
    return ast.UnaryOp(op=ast.Not(), operand=load(name))


class _Lowering:
    """Replaces one loop's ``break``/``continue`` by its flags and guards what follows."""

    def __init__(self, brk: str | None, cont: str | None):
        self.flags = {ast.Break: brk, ast.Continue: cont}

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, (ast.Break, ast.Continue)):
                out.append(located(assign(self.flags[type(stmt)], const(True)), stmt))
                return out                     # the rest of the block is dead
            jumps = _jumps([stmt])
            if not jumps:
                out.append(stmt)
                continue
            self._nested(stmt)
            out.append(stmt)
            rest = stmts[index + 1:]
            if rest:
                flags = [self.flags[kind] for kind in (ast.Break, ast.Continue) if kind in jumps]
                test = _not(flags[0]) if len(flags) == 1 else ast.BoolOp(
                    op=ast.And(), values=[_not(f) for f in flags])
                out.append(located(ast.If(test=test, body=self.block(rest), orelse=[]),
                                   rest[0]))
            return out
        return out

    def _nested(self, stmt: ast.stmt) -> None:
        blocks = [(stmt, "body"), (stmt, "orelse")] if isinstance(stmt, ast.If) else \
            nested_bodies(stmt)
        for holder, field in blocks:
            setattr(holder, field, self.block(getattr(holder, field)))
