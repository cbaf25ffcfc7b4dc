"""The backward pass itself (used by ``append_backward`` and ``gradients``).

The pass works on op *specs* (plain dicts) and decides every name before it appends an op:

1. the op path: ops that lie between the sources and the targets, have a grad rule, and are
   not cut by stop_gradient / no_grad_set (in a loop body, until no more ops are needed: a
   value one step writes, the next reads);
2. one spec list from each op's grad maker (``OpDef.make_grad_ops``), in reverse op order,
   after the seed ops (``fill_constant`` for append_backward, ``fill_any_like`` for gradients).
   An op running a sub-block (``conditional_block``, ``while``) gets its grad block from a
   pass over that sub-block (framework/grad_blocks.py);
3. specs whose gradient inputs are all absent are dropped; absent gradient inputs of kept
   specs are zero-filled with ``fill_any_like`` (an output that does not reach the loss);
4. names: several contributions to one gradient are written as partials
   ``x@GRAD@RENAME@block<b>@k`` (``b``: the forward block) and added by one ``sum`` op right
   before their first reader. Contributions add up per *version* of a variable: the grad op of
   the op that wrote a version consumes its gradient, and later contributions belong to the
   version before (a variable that a loop body or a branch overwrites). A grad op writing a
   gradient it also reads (the grad of an in-place op, of a loop variable, of a variable a
   branch overwrites) replaces it. A gradient name that already exists in the block (double
   backward) gets a fresh name;
5. the specs are appended as ops with op_role Backward, each carrying its forward op's
   creation site, and gradient variables get their forward variable's shape, dtype and type.
"""
from __future__ import annotations

from collections import defaultdict

from ..ops.registry import EMPTY_VAR, ROLE_BACKWARD, get_op, grad_name, has_op
from ..ops.types import VarType
from . import unique_name

SEED_KEY = "__seed__"        # marks the seed specs (they keep their own op_role)
NO_FILL = "__no_fill__"      # specs whose missing gradient inputs count as zeros themselves


class GradPass:
    """Differentiate the ops of ``block`` into ``grad_block`` (default: the same block).
    ``incoming``: gradients the enclosing pass provides (a sub-block's outputs).
    ``block_grads``: op type -> maker of the grad op and grad block of an op running a
    sub-block, ``maker(pass, op, available gradients) -> [spec]`` (framework/grad_blocks.py)."""

    def __init__(self, block, targets: list[str], seeds: list[dict], no_grad: set[str],
                 sources: set[str] | None, callbacks, given: dict[str, str] | None = None,
                 grad_block=None, incoming: set[str] = frozenset(), loop: bool = False,
                 block_grads: dict | None = None):
        self.block = block
        self.grad_block = grad_block if grad_block is not None else block
        self.targets = targets
        self.seeds = seeds
        self.no_grad = no_grad
        self.sources = sources
        self.callbacks = callbacks
        self.given = given or {}              # target -> user-supplied gradient var
        self.incoming = set(incoming)
        self.loop = loop
        self.block_grads = block_grads or {}
        self.forward_of: dict[str, str] = {}  # final grad name -> forward var name
        self.needed: dict[int, set[str]] = {}  # path op id -> its outputs the targets need

    def run(self) -> dict[str, str]:
        """Append the grad ops; return forward var name -> its gradient var name."""
        self.existing = set(self.grad_block.vars)   # names taken before this pass
        path = self._op_path()
        specs = list(self.seeds)
        available = set(self.given.values()) | self.incoming | {
            n for s in self.seeds for ns in s["outputs"].values() for n in ns}
        for op in reversed(path):
            maker = self.block_grads.get(op.type)
            made = (maker(self, op, available) if maker is not None
                    else op.opdef.make_grad_ops(op, self.no_grad))
            for spec in made:
                spec["_fwd"] = op
                spec["_undo"] = op.opdef.undone_in_backward   # writes forward state back
                specs.append(spec)
                available.update(n for ns in spec["outputs"].values() for n in ns)
        names = self._rename_map(specs)
        specs = self._apply_names(specs, names)
        specs = self._prune_and_fill(specs)
        specs = self._accumulate(specs)
        self._emit(specs)
        produced = {n for s in specs for ns in s["outputs"].values() for n in ns}
        result = {}
        for var in _visible_vars(self.block):     # parameters live in the global block
            final = names.get(grad_name(var.name), grad_name(var.name))
            if final in produced or (var.name in self.given and final in self.grad_block.vars):
                result[var.name] = final
        return result

    def _op_path(self) -> list:
        ops = self.block.ops
        reachable = None
        if self.sources is not None:
            live, reachable = set(self.sources), set()
            for op in ops:
                if any(n in live for n in op.input_arg_names):
                    reachable.add(id(op))
                    live.update(op.output_arg_names)
        needed, path, read = set(self.targets), {}, set()
        while True:                            # once, or (a loop body) until nothing changes
            before = (len(path), len(needed))
            for op in reversed(ops):
                opdef = op.opdef or (get_op(op.type) if has_op(op.type) else None)
                if opdef is None or (opdef.grad_fn is None and opdef.grad_maker is None
                                     and op.type not in self.block_grads):
                    continue
                if opdef.undone_in_backward:   # (increment) moved state a path op reads:
                    if read.intersection(op.output_arg_names):   # its undo joins the backward
                        path[id(op)] = op
                    continue
                if reachable is not None and id(op) not in reachable:
                    continue
                wanted = {n for n in op.output_arg_names if n in needed}
                if not wanted:
                    continue
                path[id(op)] = op
                self.needed.setdefault(id(op), set()).update(wanted)
                read.update(op.input_arg_names)
                needed.update(n for n in op.input_arg_names if grad_name(n) not in self.no_grad)
            if not self.loop or (len(path), len(needed)) == before:
                break
        return [op for op in ops if id(op) in path]

    def _rename_map(self, specs: list[dict]) -> dict[str, str]:
        """Final names for gradients: user-supplied target grads, and fresh names where a
        gradient name already exists in the block (repeated or double backward)."""
        names = {grad_name(t): g for t, g in self.given.items()}
        for spec in specs:
            if spec.get("_undo"):
                continue
            for ns in spec["outputs"].values():
                for n in ns:
                    if n != EMPTY_VAR and n not in names and n in self.existing:
                        names[n] = unique_name.generate(n)
        return names

    def _apply_names(self, specs: list[dict], names: dict[str, str]) -> list[dict]:
        for spec in specs:
            fwd = spec.get("_fwd")
            out_grads = ({grad_name(o) for o in fwd.output_arg_names} if fwd is not None
                         else set())
            fwd_inputs = set(fwd.input_arg_names) if fwd is not None else set()
            for slot, ns in spec["inputs"].items():
                for i, n in enumerate(ns):
                    is_grad_ref = n in out_grads and (n not in fwd_inputs or slot.endswith("@GRAD"))
                    if is_grad_ref and n in names:
                        ns[i] = names[n]
            for ns in spec["outputs"].values():
                for i, n in enumerate(ns):
                    if n == EMPTY_VAR:
                        continue
                    if n in self.no_grad:
                        ns[i] = EMPTY_VAR
                        continue
                    forward = n[:-len("@GRAD")] if n.endswith("@GRAD") else None
                    ns[i] = names.get(n, n)
                    if forward is not None:
                        self.forward_of[ns[i]] = forward
            spec["_grad_inputs"] = {names.get(g, g) for g in out_grads} & {
                n for ns in spec["inputs"].values() for n in ns}
        return specs

    def _prune_and_fill(self, specs: list[dict]) -> list[dict]:
        available: set[str] = set(self.given.values()) | self.incoming
        kept = []
        for spec in specs:
            outs = [n for ns in spec["outputs"].values() for n in ns if n != EMPTY_VAR]
            grad_inputs = spec.get("_grad_inputs", set())
            if not outs or (grad_inputs and not grad_inputs & available):
                continue
            for missing in ([] if spec.get(NO_FILL) else sorted(grad_inputs - available)):
                forward = self.forward_of.get(missing) or strip_grad_suffix(missing)
                kept.append({"type": "fill_any_like", "inputs": {"X": [forward]},
                             "outputs": {"Out": [missing]}, "attrs": {"value": 0.0, "dtype": -1},
                             "_fwd": spec.get("_fwd")})
                self.forward_of[missing] = forward
                available.add(missing)
            _drop_empty_slots(spec)
            kept.append(spec)
            available.update(outs)
        return kept

    def _accumulate(self, specs: list[dict]) -> list[dict]:
        """Partials and ``sum`` ops for gradients with several contributions per version."""
        counts = self._contributions(specs)
        version: dict[str, int] = defaultdict(int)
        live = set(self.incoming) | set(self.given.values())   # names holding a value
        counter: dict[str, int] = defaultdict(int)
        pending: dict[str, list[str]] = {}
        result = []

        def materialize(name: str, before: dict | None) -> None:
            parts = ([name] if name in live else []) + pending.pop(name)
            result.append({"type": "sum", "inputs": {"X": parts}, "outputs": {"Out": [name]},
                           "attrs": {}, "_fwd": before.get("_fwd") if before else None})
            live.add(name)
            self.forward_of.setdefault(name, strip_grad_suffix(name))

        def partial(name: str) -> str:
            part = f"{name}@RENAME@block{self.block.idx}@{counter[name]}"
            counter[name] += 1
            self.forward_of[part] = self.forward_of.get(name) or strip_grad_suffix(name)
            return part

        for spec in specs:
            inputs = [n for ns in spec["inputs"].values() for n in ns]
            for n in inputs:
                if n in pending:
                    materialize(n, spec)
            for n in spec.get("_grad_inputs", ()):   # the version that op wrote is done
                version[n] += 1
                live.discard(n)
            outs = [n for ns in spec["outputs"].values() for n in ns]
            replaced: dict[str, list[str]] = {}   # in-place outputs written several times
            for ns in spec["outputs"].values():
                for i, n in enumerate(ns):
                    if n == EMPTY_VAR:
                        continue
                    if n in inputs:
                        if outs.count(n) > 1:
                            ns[i] = partial(n)
                            replaced.setdefault(n, []).append(ns[i])
                        live.add(n)
                    elif counts[(n, version[n])] > 1:
                        ns[i] = partial(n)
                        pending.setdefault(n, []).append(ns[i])
                    else:
                        live.add(n)
            result.append(spec)
            for n, parts in replaced.items():    # their sum replaces the old value
                result.append({"type": "sum", "inputs": {"X": parts}, "outputs": {"Out": [n]},
                               "attrs": {}, "_fwd": spec.get("_fwd")})
        for name in list(pending):
            materialize(name, None)
        return result

    def _contributions(self, specs: list[dict]) -> dict:
        """``(name, version) -> number of values added into it``: the gradients the pass
        starts with, in-place writes and the other writes, between two consumptions."""
        counts: dict = defaultdict(int)
        version: dict[str, int] = defaultdict(int)
        for name in set(self.incoming) | set(self.given.values()):
            counts[(name, 0)] += 1
        for spec in specs:
            for n in spec.get("_grad_inputs", ()):
                version[n] += 1
            for ns in spec["outputs"].values():
                for n in ns:
                    if n != EMPTY_VAR:
                        counts[(n, version[n])] += 1
        return counts

    def _emit(self, specs: list[dict]) -> None:
        block = self.grad_block
        context = {g: f for g, f in self.forward_of.items()}
        program = block.program
        with program._role_guard(ROLE_BACKWARD):
            for spec in specs:
                created = [] if spec.get("_undo") else [    # undo: writes a forward var
                    n for ns in spec["outputs"].values() for n in ns
                    if n != EMPTY_VAR and n not in block.vars]
                for n in created:
                    self._create_grad_var(n)
                attrs = dict(spec["attrs"])
                if SEED_KEY not in spec:
                    attrs["op_role"] = ROLE_BACKWARD
                op = block.append_op(type=spec["type"], inputs=spec["inputs"],
                                     outputs=spec["outputs"], attrs=attrs)
                for n in created:        # Paddle appends grad ops at the desc level: their
                    block.vars[n]._stop_gradient = False    # outputs keep stop_gradient False
                fwd = spec.get("_fwd")
                if fwd is not None:
                    op.site = fwd.site
                for cb in self.callbacks or ():
                    context["__current_op_desc__"] = op
                    cb(block=block, context=context)

    def _create_grad_var(self, name: str) -> None:
        forward = self.block._find_var_recursive(self.forward_of.get(name)
                                                 or strip_grad_suffix(name))
        if forward is not None and forward.type == VarType.LOD_TENSOR_ARRAY:
            self.grad_block.create_var(name=name, type=forward.type, dtype=forward.dtype,
                                       shape=forward._shape)     # the elements' shape
        elif forward is not None and forward.has_tensor_desc:
            self.grad_block.create_var(name=name, shape=forward.shape, dtype=forward.dtype)
        else:
            self.grad_block.create_var(name=name, dtype="float32")


def _visible_vars(block) -> list:
    """The variables ``block`` can read: its own, then its ancestors'."""
    found = []
    while block is not None:
        found.extend(block.vars.values())
        block = block.program.blocks[block.parent_idx] if block.parent_idx >= 0 else None
    return found


def strip_grad_suffix(name: str) -> str:
    """Paddle's ``_strip_grad_suffix_``: the forward name inside a gradient name. The pass
    itself never parses names (it records ``forward_of`` when it makes them); this is a
    fallback and a compatibility helper."""
    cut = name.find("@GRAD@")
    if cut != -1:
        name = name[:cut]
    elif name.endswith("@GRAD"):
        name = name[:-len("@GRAD")]
    marker = name.rfind("grad/")
    return name[marker + len("grad/"):] if marker != -1 else name


def _drop_empty_slots(spec: dict) -> None:
    opdef = get_op(spec["type"])
    for slot in list(spec["outputs"]):
        decl = opdef.slot(slot, outputs=True)
        if all(n == EMPTY_VAR for n in spec["outputs"][slot]) and not (decl and decl.duplicable):
            del spec["outputs"][slot]
