"""``if`` and ``while`` become nested functions handed to the runtime, which decides at run
time between Python control flow and ``cond``/``while_loop`` (Paddle's ``convert_ifelse`` /
``convert_while_loop``):

    if test:                      def __true_fn_3():         def __get_5():
        a = ...           ->          nonlocal a                 return (a,)
    else:                             a = ...                def __set_5(__values):
        a = ...                   def __false_fn_4(): ...        nonlocal a
                                                                 (a,) = __values
                                  _jst.convert_ifelse(test, __true_fn_3, __false_fn_4,
                                                      __get_5, __set_5, ('a',), 'file:line')

The names handed back (a branch's outputs, a loop's carried variables) are those the block
modifies that are live around it (``names.py``). Every name a helper declares ``nonlocal``
must be bound in the enclosing function: where it is not certainly bound yet, the enclosing
function starts with ``a = _jst.UndefinedVar('a')``, and every read of such a name goes
through ``_jst.ld(a, 'a')``, which raises a clear UnboundLocalError on a name used before it
was assigned (as eager Python would). Run last, after the other passes.
"""
from __future__ import annotations

import ast

from .ast_build import (JST, NameGen, assign, const, function, jst_call, load, loc_string,
                        located, located_all, names_tuple, scope_decls, strings, thunk)
from .names import annotate_liveness, modified_names, nested_bodies


class BlockPass:
    def __init__(self, names: NameGen, filename: str, user_globals: set[str],
                 user_nonlocals: set[str]):
        self.names = names
        self.filename = filename
        self.globals = user_globals
        self.nonlocals = user_nonlocals
        self.maybe_undefined: set[str] = set()
        self.getters: set[str] = set()

    def run(self, fdef: ast.FunctionDef) -> None:
        annotate_liveness(fdef.body)
        needed: set[str] = set()
        docstring = fdef.body[:1] if _is_docstring(fdef.body[0]) else []
        body = self._block(fdef.body[len(docstring):], needed)
        params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
        params |= {a.arg for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None}
        bound = params | _assigned_first(body)
        inits = self._inits(needed - bound - self.globals - self.nonlocals, fdef)
        fdef.body = docstring + inits + body
        if self.maybe_undefined:
            _LoadChecks(self.maybe_undefined, self.getters).visit(fdef)

    def _inits(self, names: set[str], origin: ast.AST) -> list[ast.stmt]:
        self.maybe_undefined |= names
        return [located(assign(n, jst_call("UndefinedVar", const(n))), origin)
                for n in sorted(names)]

    def _block(self, stmts: list[ast.stmt], needed: set[str]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                out.extend(self._if(stmt, needed))
            elif isinstance(stmt, ast.While):
                out.extend(self._while(stmt, needed))
            elif isinstance(stmt, ast.For) and hasattr(stmt, "break_flag"):
                out.extend(self._for(stmt, needed))
            else:
                for holder, field in nested_bodies(stmt):
                    setattr(holder, field, self._block(getattr(holder, field), needed))
                out.append(stmt)
        return out

    def _nested_function(self, name: str, stmts: list[ast.stmt], outputs: list[str],
                         args: tuple[str, ...] = ()) -> ast.FunctionDef:
        """A branch or loop body: ``outputs`` refer to the enclosing binding; names its own
        helpers hand back and it does not are bound here first."""
        inner: set[str] = set()
        body = self._block(stmts, inner)
        inits = self._inits(inner - set(outputs) - _assigned_first(body) - self.globals -
                            self.nonlocals, stmts[0] if stmts else ast.Pass(lineno=1,
                                                                             col_offset=0))
        return function(name, scope_decls(outputs, self.globals) + inits + body, args)

    def _accessors(self, outputs: list[str]) -> tuple[ast.FunctionDef, ast.FunctionDef]:
        getter, setter = self.names.fresh("get"), self.names.fresh("set")
        self.getters.add(getter)
        get_fn = function(getter, [ast.Return(value=names_tuple(outputs, ast.Load()))])
        values = "__values"
        set_body = scope_decls(outputs, self.globals) + [
            ast.Assign(targets=[names_tuple(outputs, ast.Store())], value=load(values))]
        set_fn = function(setter, set_body if outputs else [ast.Pass()], args=[values])
        return get_fn, set_fn

    def _if(self, node: ast.If, needed: set[str]) -> list[ast.stmt]:
        live = node.live_out | node.live_in
        outputs = sorted(modified_names(node.body + node.orelse) & live)
        true_name, false_name = self.names.fresh("true_fn"), self.names.fresh("false_fn")
        true_fn = self._nested_function(true_name, node.body, outputs)
        false_fn = self._nested_function(false_name, node.orelse, outputs)
        get_fn, set_fn = self._accessors(outputs)
        needed.update(outputs)
        call = jst_call("convert_ifelse", node.test, load(true_name), load(false_name),
                        load(get_fn.name), load(set_fn.name), strings(outputs),
                        loc_string(self.filename, node))
        return located_all([true_fn, false_fn, get_fn, set_fn, ast.Expr(value=call)], node)

    def _while(self, node: ast.While, needed: set[str]) -> list[ast.stmt]:
        carried = sorted(modified_names(node.body) & node.body_out)
        cond_name, body_name = self.names.fresh("cond"), self.names.fresh("body")
        cond_fn = function(cond_name, [ast.Return(value=node.test)])
        body_fn = self._nested_function(body_name, node.body, carried)
        get_fn, set_fn = self._accessors(carried)
        needed.update(carried)
        call = jst_call("convert_while", load(cond_name), load(body_name), load(get_fn.name),
                        load(set_fn.name), strings(carried), loc_string(self.filename, node))
        return located_all([cond_fn, body_fn, get_fn, set_fn, ast.Expr(value=call)], node)

    def _for(self, node: ast.For, needed: set[str]) -> list[ast.stmt]:
        """A ``for`` as the loop pass left it (``for __index in __iter``)."""
        carried = sorted(modified_names(node.body) & node.body_out)
        body_name = self.names.fresh("body")
        body_fn = self._nested_function(body_name, node.body, carried, (node.target.id,))
        get_fn, set_fn = self._accessors(carried)
        needed.update(carried)
        flag = node.break_flag
        not_broken = thunk(jst_call("Not", load(flag))) if flag else const(None)
        call = jst_call("convert_for", node.iter, load(body_name), not_broken, load(get_fn.name),
                        load(set_fn.name), strings(carried), loc_string(self.filename, node))
        return located_all([body_fn, get_fn, set_fn, ast.Expr(value=call)], node)


def _assigned_first(stmts: list[ast.stmt]) -> set[str]:
    """Names plain assignments bind before the first other statement (certainly bound
    before any helper function runs)."""
    names: set[str] = set()
    for stmt in stmts:
        if not isinstance(stmt, ast.Assign) or not all(isinstance(t, ast.Name)
                                                       for t in stmt.targets):
            break
        names.update(t.id for t in stmt.targets)
    return names


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and \
        isinstance(stmt.value.value, str)


class _LoadChecks(ast.NodeTransformer):
    """Reads of names that may still be undefined go through ``_jst.ld`` (not in getters,
    which hand the placeholders to the runtime as they are)."""

    def __init__(self, names: set[str], getters: set[str]):
        self.names = names
        self.getters = getters

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if node.name in self.getters:
            return node
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "ld" and \
                isinstance(func.value, ast.Name) and func.value.id == JST:
            return node                             # checked already
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            return located(jst_call("ld", ast.Name(id=node.id, ctx=ast.Load()),
                                    const(node.id)), node)
        return node
