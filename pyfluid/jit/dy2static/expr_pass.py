"""Expressions whose meaning depends on a value: they call the runtime, which decides.

* ``a and b`` / ``a or b`` -> ``_jst.And(lambda: a, lambda: b)`` / ``_jst.Or(...)``: Python's
  short-circuit for Python values, ``logical_and``/``logical_or`` for Tensors.
* ``not a`` -> ``_jst.Not(a)``; ``a < b < c`` -> ``_jst.compare_chain(...)`` (each operand
  evaluated once, as in Python).
* ``x if c else y`` -> ``_jst.IfExp(c, lambda: x, lambda: y)``: ``cond`` for a Tensor ``c``.
* ``f(...)`` -> ``_jst.call(f)(...)``: functions and Layers the user wrote are converted when
  called (``convert_call.py``); ``len``/``range``/``enumerate``/``zip``/``print``/``int``...
  get their Tensor-aware versions.
* ``assert c, msg`` -> ``_jst.convert_assert(c, lambda: msg)``.

Operands holding ``:=``, ``yield`` or ``await`` stay as written (a lambda would change their
meaning).
"""
from __future__ import annotations

import ast

from .ast_build import JST, const, jst_call, loc_string, located, thunk

_COMPARE_NAMES = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
                  ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
                  ast.NotIn: "not in"}
_NOT_IN_LAMBDA = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)


def _lambda_safe(*nodes: ast.AST) -> bool:
    return not any(isinstance(n, _NOT_IN_LAMBDA) for node in nodes for n in ast.walk(node))


def _is_runtime_call(node: ast.Call) -> bool:
    func = node.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
        func.value.id == JST


class ExpressionPass(ast.NodeTransformer):
    """Applied to the statements of one function scope (nested defs have their own)."""

    def __init__(self, filename: str):
        self.filename = filename

    def run(self, fdef: ast.FunctionDef) -> None:
        fdef.body = [self.visit(stmt) for stmt in fdef.body]

    # nested functions and classes are converted on their own
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if not _lambda_safe(*node.values):
            return node
        helper = "And" if isinstance(node.op, ast.And) else "Or"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = jst_call(helper, thunk(value), thunk(result))
        return located(result, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return located(jst_call("Not", node.operand), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1 or not _lambda_safe(node):
            return node
        args: list[ast.expr] = [thunk(node.left)]
        for op, right in zip(node.ops, node.comparators):
            args += [const(_COMPARE_NAMES[type(op)]), thunk(right)]
        return located(jst_call("compare_chain", *args), node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if not _lambda_safe(node.body, node.orelse):
            return node
        return located(jst_call("IfExp", node.test, thunk(node.body), thunk(node.orelse),
                                loc_string(self.filename, node)), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if _is_runtime_call(node) or isinstance(node.func, ast.Name) and \
                node.func.id == "super":
            return node
        node.func = located(jst_call("call", node.func), node.func)
        return node

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        self.generic_visit(node)
        message = node.msg if node.msg is not None else const(None)
        if not _lambda_safe(message):
            return node
        call = jst_call("convert_assert", node.test, thunk(message))
        return located(ast.Expr(value=call), node)
