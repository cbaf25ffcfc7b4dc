"""Every registered op that can be differentiated has a numeric gradient case."""
import pyfluid  # noqa: F401  (registers every op)
from pyfluid.ops import get_op, registered_ops

from test_op_grads import CASES


def differentiable_ops() -> set[str]:
    """Ops with a grad rule or maker, and differentiable forward ops that have a kernel (not
    ``increment``, whose maker undoes it in the backward: no gradient to check)."""
    found = set()
    for op_type in registered_ops():
        opdef = get_op(op_type)
        has_rule = (opdef.grad_fn is not None or opdef.grad_maker is not None) \
            and not opdef.undone_in_backward
        if has_rule or (opdef.differentiable and opdef.kernel is not None):
            found.add(op_type)
    return found


def test_every_differentiable_op_has_a_grad_case():
    missing = sorted(differentiable_ops() - {case.op_type for case in CASES})
    assert not missing, (f"ops with a gradient but no case in tests/test_op_grads.py: {missing}; "
                         "add one line per op to CASES (or declare differentiable=False)")


def test_cases_name_registered_ops():
    unknown = sorted({case.op_type for case in CASES} - set(registered_ops()))
    assert not unknown, f"CASES name ops that are not registered: {unknown}"
