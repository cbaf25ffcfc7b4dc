"""Early ``return``: one exit at the end of the function.

A branch or a loop body becomes a nested function, so a ``return`` inside one cannot leave
the user's function directly. Each such ``return v`` becomes ``__return_value = v``:

* after an ``if`` whose branch always returns, the rest of the block moves into the other
  branch (``if c: return a`` + ``rest`` -> ``if c: ... else: rest``), as Paddle's early-return
  transform does, so straight-line early returns need no flag;
* otherwise a flag ``__return_flag`` is set and the code after the statement runs under
  ``if not __return_flag:``; inside a loop the ``return`` also ``break``s (the loop pass then
  ends the loop) and each enclosing loop breaks right after the inner one when the flag is set.

The function then ends with ``return _jst.return_value(__return_value)`` (None when no
``return`` ran). Functions whose returns are all at the top level are left alone.
"""
from __future__ import annotations

import ast

from .ast_build import NameGen, assign, const, jst_call, load, located, located_all
from .names import nested_bodies, walk_scope

LOOPS = (ast.While, ast.For)


def _returns_in(stmts: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in walk_scope(s))


def _always_returns(stmts: list[ast.stmt]) -> bool:
    """Whether every path through ``stmts`` ends in a ``return``."""
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            return True
        if isinstance(stmt, ast.If) and stmt.orelse and _always_returns(stmt.body) and \
                _always_returns(stmt.orelse):
            return True
    return False


def _needs_transform(body: list[ast.stmt]) -> bool:
    """A ``return`` nested in an ``if`` or a loop (top-level ones return directly)."""
    return any(isinstance(s, (ast.If,) + LOOPS) and _returns_in([s]) or
               _needs_transform([x for holder, field in nested_bodies(s)
                                 for x in getattr(holder, field)])
               for s in body)


class ReturnPass:
    """Applies the transform to one function body (see the module docstring)."""

    def __init__(self, names: NameGen):
        self.value = names.fresh("return_value")
        self.flag = names.fresh("return_flag")
        self.flag_used = False

    def run(self, fdef: ast.FunctionDef) -> None:
        if not _needs_transform(fdef.body):
            return
        body = self._block(fdef.body, in_loop=False)
        init = [assign(self.value, jst_call("UndefinedVar", const(self.value)))]
        if self.flag_used:
            init.append(assign(self.flag, const(False)))
        final = ast.Return(value=jst_call("return_value", load(self.value)))
        origin = fdef.body[-1]
        fdef.body = located_all(init, fdef.body[0]) + body + [located(final, origin)]

    def _guard(self, stmts: list[ast.stmt], origin: ast.AST) -> ast.If:
        """``if not __return_flag: stmts``."""
        self.flag_used = True
        test = ast.UnaryOp(op=ast.Not(), operand=load(self.flag))
        return located(ast.If(test=test, body=stmts, orelse=[]), origin)

    def _block(self, stmts: list[ast.stmt], in_loop: bool) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for index, stmt in enumerate(stmts):
            rest = stmts[index + 1:]
            if isinstance(stmt, ast.Return):
                out.extend(self._return(stmt, in_loop))
                return out                       # what follows a return never runs
            if not _returns_in([stmt]) or isinstance(stmt, (ast.FunctionDef, ast.ClassDef,
                                                            ast.AsyncFunctionDef)):
                out.append(stmt)
                continue
            if isinstance(stmt, ast.If) and rest and not in_loop:
                if _always_returns(stmt.body):
                    stmt.orelse, rest = stmt.orelse + rest, []
                elif stmt.orelse and _always_returns(stmt.orelse):
                    stmt.body, rest = stmt.body + rest, []
                if not rest:                    # the rest moved into a branch
                    self._inner(stmt, in_loop)
                    out.append(stmt)
                    return out
            self._inner(stmt, in_loop)
            out.append(stmt)
            if isinstance(stmt, LOOPS) and in_loop:
                self.flag_used = True
                out.append(located(ast.If(test=load(self.flag), body=[ast.Break()], orelse=[]),
                                   stmt))
            elif rest and not in_loop:
                out.append(self._guard(self._block(rest, in_loop), rest[0]))
                return out
            elif rest:
                # in a loop: the flag was set together with a break, which the loop pass
                # turns into a guard on the rest of the body
                continue
        return out

    def _inner(self, stmt: ast.stmt, in_loop: bool) -> None:
        """Transform the statement lists nested in ``stmt``."""
        if isinstance(stmt, LOOPS):
            stmt.body = self._block(stmt.body, in_loop=True)
            stmt.orelse = self._block(stmt.orelse, in_loop)
        elif isinstance(stmt, ast.If):
            stmt.body = self._block(stmt.body, in_loop)
            stmt.orelse = self._block(stmt.orelse, in_loop)
        else:
            for holder, field in nested_bodies(stmt):
                setattr(holder, field, self._block(getattr(holder, field), in_loop))

    def _return(self, stmt: ast.Return, in_loop: bool) -> list[ast.stmt]:
        value = stmt.value if stmt.value is not None else const(None)
        out: list[ast.stmt] = [assign(self.value, value)]
        self.flag_used = True
        out.append(assign(self.flag, const(True)))
        if in_loop:
            out.append(ast.Break())
        return located_all(out, stmt)
