"""Which names a piece of a function binds and reads, and which are live where.

The transformer turns the branches and loop bodies of a function into nested functions; the
names they must hand back (a branch's outputs, a loop's carried variables) are the names the
block binds that are *live* around it: read later before being rebound, or read by the block
before it binds them. ``annotate_liveness`` computes that for every ``if`` and ``while`` of
one function scope (after the return/loop passes, so control flow is structured) and stores
``live_in``/``live_out`` (and, for loops, ``body_out``: what is live at the end of the body)
on the nodes. Nested functions, lambdas and comprehensions are their own scopes: what they
bind stays inside; every name they read counts as read where they are defined (they may run
then or later, so the analysis stays on the safe side).
"""
from __future__ import annotations

import ast
from typing import Iterable

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
          ast.SetComp, ast.DictComp, ast.GeneratorExp)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

# list methods that change the list in place: the list counts as modified by the block
MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort"}


def walk_scope(node: ast.AST) -> Iterable[ast.AST]:
    """The nodes of ``node`` that belong to its scope: nested functions, classes, lambdas
    and comprehensions are yielded but not entered (a nested def binds its name here)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        if not isinstance(current, SCOPES):
            todo.extend(reversed(list(ast.iter_child_nodes(current))))


def nested_bodies(stmt: ast.stmt) -> list[tuple[ast.AST, str]]:
    """(holder, field) of each statement list of a ``with``, ``try`` or ``match`` statement
    (those the passes walk into without converting the statement itself)."""
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [(stmt, "body")]
    if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        return [(stmt, "body")] + [(h, "body") for h in stmt.handlers] + \
            [(stmt, "orelse"), (stmt, "finalbody")]
    if isinstance(stmt, ast.Match):
        return [(case, "body") for case in stmt.cases]
    return []


def _target_names(target: ast.AST, out: set[str]) -> None:
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _target_names(elt, out)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, out)


def bound_names(stmts: Iterable[ast.AST]) -> set[str]:
    """Names bound anywhere in ``stmts`` (this scope only): assignments, loop targets,
    ``with ... as``, ``except ... as``, imports, walrus, nested def/class names."""
    names: set[str] = set()
    for stmt in stmts:
        for node in walk_scope(stmt):
            if isinstance(node, (ast.Assign,)):
                for t in node.targets:
                    _target_names(t, names)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                _target_names(node.target, names)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                _target_names(node.target, names)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                _target_names(node.optional_vars, names)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.NamedExpr):
                _target_names(node.target, names)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                names.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                names.add(node.rest)
            elif isinstance(node, FUNCTIONS + (ast.ClassDef,)):
                names.add(node.name)
    return names


def modified_names(stmts: Iterable[ast.AST]) -> set[str]:
    """``bound_names`` plus names changed in place: ``x.append(...)`` (and the other list
    mutators), ``x[i] = v``, ``x[i] += v``."""
    names = bound_names(stmts)
    for stmt in stmts:
        for node in walk_scope(stmt):
            if isinstance(node, ast.Attribute) and node.attr in MUTATORS and \
                    isinstance(node.value, ast.Name):        # x.append(...), also as _jst.call
                names.add(node.value.id)
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        names.add(t.value.id)
    return names


def read_names(node: ast.AST | Iterable[ast.AST] | None) -> set[str]:
    """Every name loaded in ``node`` (nested scopes included: closures read when they run)."""
    if node is None:
        return set()
    nodes = node if isinstance(node, list) else [node]
    names = set()
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                names.add(sub.id)
            elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
                names.add(sub.target.id)
    return names


def _definite_writes(stmt: ast.stmt) -> set[str]:
    """Names a simple statement certainly rebinds (what it kills for liveness)."""
    names: set[str] = set()
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            _target_names(t, names)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
        _target_names(stmt.target, names)
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
    elif isinstance(stmt, FUNCTIONS + (ast.ClassDef,)):
        names.add(stmt.name)
    return names


def _own_reads(stmt: ast.stmt) -> set[str]:
    """Names a statement reads outside its nested statement lists."""
    if isinstance(stmt, (ast.If, ast.While)):
        return read_names(stmt.test)
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        flag = getattr(stmt, "break_flag", None)       # read by convert_for every iteration
        return read_names(stmt.iter) | ({flag} if flag else set())
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return read_names([i.context_expr for i in stmt.items])
    if isinstance(stmt, ast.Try):
        return read_names([h.type for h in stmt.handlers if h.type is not None])
    return read_names(stmt)


def live_in(stmts: list[ast.stmt], live_out: set[str]) -> set[str]:
    """The names live before ``stmts`` given those live after; annotates the ``if`` and
    ``while`` statements inside (see the module docstring)."""
    live = set(live_out)
    for stmt in reversed(stmts):
        live = _stmt_live_in(stmt, live)
    return live


def _stmt_live_in(stmt: ast.stmt, out: set[str]) -> set[str]:
    if isinstance(stmt, ast.If):
        stmt.live_out = set(out)
        result = read_names(stmt.test) | live_in(stmt.body, out) | live_in(stmt.orelse, out)
        stmt.live_in = result
        return result
    if isinstance(stmt, (ast.While, ast.For, ast.AsyncFor)):
        head = _own_reads(stmt)
        after = live_in(stmt.orelse, out) | out
        body_out = head | after
        while True:                   # a fixpoint: the body's start feeds its end
            start = live_in(stmt.body, body_out)
            grown = body_out | start
            if grown == body_out:
                break
            body_out = grown
        stmt.live_out, stmt.body_out = set(out), body_out
        stmt.live_in = head | start | after
        return stmt.live_in
    if isinstance(stmt, (ast.Return,)):
        return read_names(stmt)
    if isinstance(stmt, ast.Match):                # no case may match: out flows through
        result = read_names(stmt.subject) | out
        for case in stmt.cases:
            result |= read_names([case.pattern] + ([case.guard] if case.guard else []))
            result |= live_in(case.body, out)
        return result
    if isinstance(stmt, (ast.With, ast.AsyncWith, ast.Try)):
        # bodies may stop part-way (an exception): what they kill is not certain
        blocks = [stmt.body] + ([h.body for h in stmt.handlers] + [stmt.orelse, stmt.finalbody]
                                if isinstance(stmt, ast.Try) else [])
        result = _own_reads(stmt) | out
        for block in blocks:
            result |= live_in(block, out | result)
        return result
    if isinstance(stmt, FUNCTIONS + (ast.ClassDef,)):
        return (out - {stmt.name}) | read_names(stmt)
    return _own_reads(stmt) | (out - _definite_writes(stmt))


def annotate_liveness(body: list[ast.stmt]) -> None:
    """Annotate the statements of one function body (nothing is live after it returns)."""
    live_in(body, set())
