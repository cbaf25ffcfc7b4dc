"""einsum (paddle.einsum): Einstein summation over its Operands, written as Paddle's equation
("ij,jk->ik", "...i,...i", "ii->i"). The forward is NumPy's einsum; the gradient of each operand
is the einsum of the output gradient with the other operands back to that operand's labels.

Equations are first made explicit: ``...`` becomes one letter per broadcast dim (aligned from the
right, as NumPy and Paddle broadcast) and an implicit output ("ij,jk") becomes the ellipsis dims
followed by the labels used once, in alphabetical order."""
from __future__ import annotations

import string
from collections import Counter
from typing import NamedTuple

import numpy as np

from .registry import register_op
from .types import Meta


class Equation(NamedTuple):
    inputs: tuple      # one label string per operand, ellipsis expanded
    output: str


def parse_equation(equation: str, ranks: list[int]) -> Equation:
    """The explicit form of ``equation`` for operands of these ranks."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ValueError(f"einsum: the equation '{equation}' has {len(terms)} operand terms but "
                         f"{len(ranks)} operands were given")
    used = set(eq) - set(",.->")
    bad = sorted(c for c in used if c not in string.ascii_letters)
    if bad:
        raise ValueError(f"einsum: labels must be letters, the equation '{equation}' has {bad}")
    free = [c for c in string.ascii_letters if c not in used]
    widths = []
    for term, rank in zip(terms, ranks):
        named = len(term.replace("...", ""))
        if "..." not in term and named != rank or named > rank:
            raise ValueError(f"einsum: the term '{term}' of '{equation}' does not fit an operand "
                             f"of rank {rank}")
        widths.append(rank - named if "..." in term else 0)
    ellipsis = "".join(free[:max(widths, default=0)])
    inputs = tuple(t.replace("...", ellipsis[len(ellipsis) - w:] if w else "")
                   for t, w in zip(terms, widths))
    if arrow:
        if "..." not in rhs and ellipsis and any(widths):
            raise ValueError(f"einsum: the output of '{equation}' must keep '...' (broadcast dims)")
        output = rhs.replace("...", ellipsis)
        unknown = sorted(set(output) - set("".join(inputs)))
        if unknown:
            raise ValueError(f"einsum: output labels {unknown} of '{equation}' appear in no "
                             "operand")
    else:
        counts = Counter("".join(t.replace("...", "") for t in terms))
        output = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    return Equation(inputs, output)


def _label_sizes(eq: Equation, shapes: list[tuple]) -> dict:
    """Size of every label; -1 unknown; a 1 broadcasts against a larger size."""
    sizes: dict[str, int] = {}
    for labels, shape in zip(eq.inputs, shapes):
        for label, n in zip(labels, shape):
            known = sizes.get(label)
            if known is None or known == 1 or known == -1 and n != 1:
                sizes[label] = n
            elif n not in (1, -1, known):
                raise ValueError(f"einsum: label '{label}' has size {known} in one operand and "
                                 f"{n} in another (operand shapes {[list(s) for s in shapes]})")
    return sizes


einsum = register_op("einsum", inputs=["Operands*"], outputs=["Out", "InnerCache*", "XShape*"],
                     attrs={"equation": ""}, extra_outputs=["InnerCache", "XShape"])


@einsum.def_infer_shape
def einsum_shape(operands: list, *, equation):
    eq = parse_equation(equation, [len(m.shape) for m in operands])
    sizes = _label_sizes(eq, [tuple(m.shape) for m in operands])
    out = Meta(tuple(sizes[c] for c in eq.output), operands[0].dtype)
    shadows = [Meta((0,) + tuple(m.shape), m.dtype) for m in operands]
    return out, shadows, list(shadows)


def _contract(inputs: tuple, output: str, arrays: list) -> np.ndarray:
    spec = ",".join(inputs) + "->" + output
    return np.einsum(spec, *arrays, optimize=len(arrays) > 1)


@einsum.def_kernel
def einsum_kernel(operands, *, equation):
    eq = parse_equation(equation, [a.ndim for a in operands])
    out = np.asarray(_contract(eq.inputs, eq.output, operands), dtype=operands[0].dtype)
    shadows = [np.empty((0,) + a.shape, dtype=a.dtype) for a in operands]
    return out, shadows, [s.copy() for s in shadows]


def _operand_grad(eq: Equation, k: int, operands: list, dout: np.ndarray) -> np.ndarray:
    labels, x = eq.inputs[k], operands[k]
    unique = "".join(dict.fromkeys(labels))
    others = [i for i in range(len(operands)) if i != k]
    reachable = set(eq.output).union(*(eq.inputs[i] for i in others))
    kept = "".join(c for c in unique if c in reachable)
    g = _contract((eq.output,) + tuple(eq.inputs[i] for i in others), kept,
                  [dout] + [operands[i] for i in others])
    size = dict(zip(labels, x.shape))
    # labels x broadcast (size 1 against a larger size elsewhere): sum the gradient back
    wide = tuple(j for j, c in enumerate(kept) if size[c] == 1 and g.shape[j] != 1)
    if wide:
        g = g.sum(axis=wide, keepdims=True)
    # labels only x has were summed away by the forward: every element got the same gradient
    g = g.reshape([g.shape[kept.index(c)] if c in kept else 1 for c in unique])
    g = np.broadcast_to(g, [size[c] for c in unique])
    if unique == labels:
        return np.ascontiguousarray(g, dtype=x.dtype)
    dx = np.zeros_like(x)               # repeated labels ("ii"): only the diagonal is read
    np.einsum(labels + "->" + unique, dx)[...] = g
    return dx


@einsum.def_grad
def einsum_grad(operands, dout, *, equation):
    eq = parse_equation(equation, [a.ndim for a in operands])
    return [_operand_grad(eq, k, operands, dout) for k in range(len(operands))]
