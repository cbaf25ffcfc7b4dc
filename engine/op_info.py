"""What eager mode needs to know about one op type (:class:`OpInfo`), worked out once per
type from its registry declaration: slot facts, the grad op's argument layout, and the op's
bound kernels memoized per attribute values (``OpDef.bound_kernel``, specialized where the op
declares ``def_specialize``)."""
from __future__ import annotations

import operator
from typing import Callable

from ..ops.registry import GRAD_SUFFIX, get_op

_MAX_BOUND = 256        # memoized attribute sets per op type (scalars vary: keep it bounded)


def _picker(indices) -> Callable:
    """``values -> tuple(values[i] for i in indices)``, in C where there are several."""
    if len(indices) > 1:
        return operator.itemgetter(*indices)
    if indices:
        index = indices[0]
        return lambda values: (values[index],)
    return lambda values: ()


class OpInfo:
    """What eager mode needs to know about one op type, computed once."""

    def __init__(self, op_type: str):
        self.opdef = opdef = get_op(op_type)
        self.inputs = opdef.inputs
        self.slots = tuple((s.name, s.dispensable, s.duplicable) for s in opdef.inputs)
        self.single_output = len(opdef.outputs) == 1
        # A rule makes an op differentiable; grad ops get one from ops/double_grad.py.
        self.differentiable = opdef.grad_fn is not None or opdef.grad_maker is not None
        self.diff_slots = tuple(i for i, s in enumerate(opdef.inputs) if s.name not in opdef.no_grad)
        self.has_duplicable = any(s.duplicable for s in opdef.inputs) or any(
            s.duplicable for s in opdef.outputs)
        # a grad rule reading a duplicable output's gradient gets it as a list (rnn's State)
        self.dup_outputs = any(s.duplicable for s in opdef.outputs)
        self.grad_def = None
        self.saved_then_dout = False
        self.grad_args: tuple = ()      # per grad-op input: (is_dout, forward index, is_output)
        self.saved_values: tuple = ()   # what a node keeps: (forward index, is_output)
        self.saved_inputs: tuple = ()   # forward input slots among them (version-checked)
        if opdef.grad_fn is not None and opdef.grad_maker is None:
            self.grad_def = get_op(opdef.grad_op_type)
            out_pos = {s.name: i for i, s in enumerate(opdef.outputs)}
            in_pos = {s.name: i for i, s in enumerate(opdef.inputs)}
            args = []
            for slot in self.grad_def.inputs:
                if slot.name.endswith(GRAD_SUFFIX):
                    args.append((True, out_pos[slot.name[:-len(GRAD_SUFFIX)]], True))
                elif slot.name in in_pos:
                    args.append((False, in_pos[slot.name], False))
                else:
                    args.append((False, out_pos[slot.name], True))
            self.grad_args = tuple(args)
            self.saved_values = tuple((index, is_output)
                                      for is_dout, index, is_output in args if not is_dout)
            self.saved_inputs = tuple(index for index, is_output in self.saved_values
                                      if not is_output)
            # the saved values from (*args, *results); the saved input tensors from tensors
            n_in = len(opdef.inputs)
            self.pick_saved = _picker([index + n_in if is_output else index
                                       for index, is_output in self.saved_values])
            self.pick_saved_inputs = _picker(self.saved_inputs)
            # The usual layout: saved values, then the one output's gradient.
            self.saved_then_dout = len(opdef.outputs) == 1 and [a[0] for a in args] == [
                False] * (len(args) - 1) + [True]
        # no duplicable slot and a derived grad op: the common case, on a shorter path
        self.plain = self.grad_def is not None and not self.has_duplicable
        self.single_diff = len(self.diff_slots) == 1
        # backward = the grad kernel on (saved values..., the one output's gradient)
        self.direct_grad = self.plain and self.saved_then_dout
        self.all_differentiable = len(self.diff_slots) == len(opdef.inputs)
        self.takes_wanted = self.grad_def is not None and self.grad_def.takes_wanted
        self.run = None                 # straight-line run_op for this type (fast_run.py)
        self.list_attrs = False         # some attribute value is a list (set at the first call)
        self._bound: dict = {}          # attrs key -> [kernel, kwargs, grad (kernel, kwargs)]

    def bound(self, attrs: dict) -> list:
        """``[kernel, kwargs, None]``: ``OpDef.bound_kernel`` of the op, memoized by attribute
        values; the third entry caches the grad op's (``bound_grad``)."""
        if not attrs:
            found = self._bound.get(())
            if found is not None:
                return found
        if not self.list_attrs:
            try:
                key = tuple(attrs.items())
                found = self._bound.get(key)
            except TypeError:
                self.list_attrs = True
        if self.list_attrs:              # list-valued attributes: hash them as tuples
            key = tuple([(k, tuple(v) if isinstance(v, list) else v) for k, v in attrs.items()])
            try:
                found = self._bound.get(key)
            except TypeError:            # still unhashable: no memo
                key, found = None, None
        if found is None:
            found = [*self.opdef.bound_kernel(attrs), None]
            if key is not None:
                if len(self._bound) >= _MAX_BOUND:
                    self._bound.clear()
                self._bound[key] = found
        return found

    def bound_grad(self, entry: list, attrs: dict) -> tuple:
        """The grad op's ``(kernel, kwargs)`` for the attrs of a ``bound`` entry."""
        if entry[2] is None:
            entry[2] = self.grad_def.bound_kernel(attrs)
        return entry[2]
