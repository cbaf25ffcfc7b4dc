"""Functions and Layers with Python control flow on Tensors, for tests/test_dy2static.py.

Each is valid Python in eager mode; to_static converts it. ``CASES`` lists them with inputs
that together take every branch (and every loop count that matters)."""
import numpy as np

import pyfluid as paddle
import pyfluid.nn.functional as F


# -- if / elif / else ---------------------------------------------------------------------------
def if_else(x):
    if paddle.mean(x) > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    return y


def if_without_else(x):
    y = x + 1.0
    if paddle.sum(x) > 0:
        y = y * 3.0
    return y


def if_elif_else(x):
    s = paddle.sum(x)
    if s > 2.0:
        y = F.relu(x)
    elif s > -2.0:
        y = paddle.exp(x * 0.1)
    else:
        y = -x
    return y, s


def nested_if(x):
    if paddle.mean(x) > 0:
        if paddle.max(x) > 1.5:
            y = x * 0.5
        else:
            y = x * 2.0
    else:
        y = paddle.tanh(x)
    return y


def if_two_names(x):
    a = x
    b = x * 2.0
    if paddle.min(x) > -0.5:
        a = a + 1.0
    else:
        b = b - 1.0
    return a, b


def if_python_and_tensor(x, scale):
    if scale > 1:                    # a Python value: decided while converting
        x = x * scale
    if paddle.mean(x) > 0:
        x = x + 1.0
    return x


def if_and_or_not(x):
    if paddle.mean(x) > 0 and paddle.max(x) > 1.0:
        y = x * 2.0
    elif not paddle.min(x) < -1.0 or paddle.sum(x) > 100.0:
        y = x * 3.0
    else:
        y = x * 4.0
    return y


def conditional_expression(x):
    y = x * 2.0 if paddle.mean(x) > 0 else x * 3.0
    return y + 1.0


def compare_chain(x):
    if -0.2 < paddle.mean(x) < 0.2:
        return x * 0.0
    return x


# -- while ------------------------------------------------------------------------------------
def while_tensor_condition(x):
    h = x
    while paddle.sum(paddle.abs(h)) > 1.0:
        h = h * 0.5
    return h


def while_counter(x, n):
    i = paddle.zeros([1], "int64")
    while i < n:
        x = paddle.tanh(x) * 1.5 + 0.1
        i += 1
    return x, i


def while_python_counter_tensor_bound(x, n):
    i = 0
    while i < n:
        x = x * 0.9 + 0.1
        i = i + 1
    return x


def while_break(x):
    i = 0
    h = x
    while i < 10:
        h = h * 1.5
        if paddle.sum(paddle.abs(h)) > 30.0:
            break
        i += 1
    return h


def while_continue(x, n):
    i = paddle.zeros([1], "int64")
    acc = paddle.zeros_like(x)
    while i < n:
        i += 1
        if paddle.sum(x * i.astype("float32")) < 0:
            continue
        acc = acc + x
    return acc


# -- for --------------------------------------------------------------------------------------
def for_range_tensor(x, n):
    for _ in range(n):
        x = x * 0.9 + 0.1
    return x


def for_range_start_stop_step(x, n):
    acc = paddle.zeros([1], "int64")
    for i in range(1, n, 2):
        acc = acc + i
    return x * acc.astype("float32")


def for_over_tensor(x):
    acc = paddle.zeros([4], "float32")
    for row in x:
        if paddle.sum(row) > 0:
            acc = acc + row
        else:
            acc = acc - row
    return acc


def for_enumerate_tensor(x):
    acc = paddle.zeros([4], "float32")
    for i, row in enumerate(x):
        acc = acc + row * (i + 1)
    return acc


def for_python_list_tensor_break(x):
    h = x
    for w in [1.5, 2.0, 3.0, 4.0]:
        h = h * w
        if paddle.max(h) > 8.0:
            break
    return h


def for_break_continue(x, n, limit):
    s = paddle.zeros([1], "float32")
    count = paddle.zeros([1], "int64")
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + paddle.mean(paddle.abs(x)) * float(i)
        count += 1
        if s > limit:
            break
    return s, count


def for_else(x, n):
    for i in range(n):
        if paddle.sum(x) > 100.0:
            break
        x = x * 2.0
    else:
        x = x + 1000.0
    return x


# -- return -----------------------------------------------------------------------------------
def early_return(x):
    h = x * 2.0
    if paddle.min(x) > 0:
        return h + 10.0
    h = h * h
    if paddle.max(x) < 0:
        return h - 10.0
    return h


def return_in_elif(x):
    s = paddle.sum(x)
    if s > 1.0:
        return x + 1.0
    elif s < -1.0:
        return x - 1.0
    x = x * 3.0
    return x


def return_in_loop(x, n):
    i = 0
    while i < n:
        if paddle.sum(x) > 10.0:
            return x * 0.5
        x = x + 1.0
        i += 1
    return x * 2.0


# -- nesting ----------------------------------------------------------------------------------
def nested_loops(x, n):
    i = paddle.zeros([1], "int64")
    while i < n:
        if paddle.mean(x) > 0:
            x = x - 0.5
        else:
            x = x + 0.25
        for _ in range(i):
            x = x * 0.9
        i = i + 1
    return x


def loop_in_branch(x, n):
    if paddle.mean(x) > 0:
        for _ in range(n):
            x = x * 1.1
    else:
        x = x - 1.0
    return x


def name_first_assigned_in_loop(x, n):
    h = x
    for i in range(n):
        last = h * 2.0
        h = h + 1.0
    return h, last


# -- calls ------------------------------------------------------------------------------------
def _clip_positive(v):
    if paddle.mean(v) > 0:
        return paddle.clip(v, 0.0, 1.0)
    return v * 0.5


def _twice(v):
    return _clip_positive(v) + _clip_positive(v * 2.0)


def calls_helper(x):
    return _twice(x) + 1.0


@paddle.jit.not_to_static
def _python_only(v, factor):
    return v * factor


def calls_not_to_static(x):
    if paddle.sum(x) > 0:
        x = _python_only(x, 2.0)
    return x


def uses_len(x):
    acc = paddle.zeros([4], "float32")
    for i in range(len(x)):
        acc = acc + x[i]
    return acc


# -- Layers -----------------------------------------------------------------------------------
class Gate(paddle.nn.Layer):
    """A sub-Layer with a Tensor if in its forward."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if paddle.mean(h) > 0:
            h = F.relu(h)
        else:
            h = -h
        return h


class GatedLoop(paddle.nn.Layer):
    """A Layer calling a converted sub-Layer, then looping while a norm is large."""

    def __init__(self):
        super().__init__()
        self.gate = Gate()
        self.out = paddle.nn.Linear(4, 2)

    def forward(self, x):
        h = self.gate(x)
        while paddle.sum(paddle.abs(h)) > 4.0:
            h = h * 0.5
        return self.out(h)


class ListOfLayers(paddle.nn.Layer):
    """A Python loop over sub-Layers, with a Tensor if per layer."""

    def __init__(self):
        super().__init__()
        self.blocks = paddle.nn.LayerList([paddle.nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x):
        for block in self.blocks:
            y = block(x)
            if paddle.mean(y) > 0:
                x = x + y
            else:
                x = x - y
        return x


def _x(kind, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype("float32")
    return {"pos": np.abs(a) + 0.1, "neg": -np.abs(a) - 0.1, "big": np.abs(a) + 2.0,
            "small": a * 0.01, "mixed": a}[kind]


def _n(v):
    return np.array([v], "int64")


def _f(v):
    return np.array([v], "float32")


ALL = ["pos", "neg", "big", "small", "mixed"]
CASES = [
    # (function, list of input tuples, differentiable w.r.t. the float inputs)
    (if_else, [(_x(k),) for k in ALL], True),
    (if_without_else, [(_x(k),) for k in ALL], True),
    (if_elif_else, [(_x(k),) for k in ALL], True),
    (nested_if, [(_x(k),) for k in ALL], True),
    (if_two_names, [(_x(k),) for k in ALL], True),
    (if_python_and_tensor, [(_x(k), s) for k in ("pos", "neg") for s in (1, 3)], True),
    (if_and_or_not, [(_x(k),) for k in ALL] + [(_x("neg") * 3.0,)], True),
    (conditional_expression, [(_x(k),) for k in ALL], True),
    (compare_chain, [(_x(k),) for k in ALL], True),
    (while_tensor_condition, [(_x(k),) for k in ALL], True),
    (while_counter, [(_x("mixed"), _n(v)) for v in (0, 1, 5)], True),
    (while_python_counter_tensor_bound, [(_x("mixed"), _n(v)) for v in (0, 1, 4)], True),
    (while_break, [(_x(k),) for k in ("small", "mixed", "big")], True),
    (while_continue, [(_x(k), _n(v)) for k in ("pos", "neg") for v in (0, 3)], True),
    (for_range_tensor, [(_x("mixed"), _n(v)) for v in (0, 1, 4)], True),
    (for_range_start_stop_step, [(_x("mixed"), _n(v)) for v in (0, 1, 2, 7)], True),
    (for_over_tensor, [(_x(k),) for k in ALL], True),
    (for_enumerate_tensor, [(_x(k),) for k in ("pos", "mixed")], True),
    (for_python_list_tensor_break, [(_x(k),) for k in ("small", "pos", "big")], True),
    (for_break_continue, [(_x("mixed"), _n(n), _f(lim)) for n, lim in
                          ((0, 100.0), (6, 100.0), (10, 0.01), (10, 3.0))], True),
    (for_else, [(_x(k), _n(v)) for k in ("pos", "big") for v in (0, 2, 6)], True),
    (early_return, [(_x(k),) for k in ("pos", "neg", "mixed")], True),
    (return_in_elif, [(_x(k),) for k in ("pos", "neg", "small")], True),
    (return_in_loop, [(_x(k), _n(v)) for k in ("small", "big") for v in (0, 3)], True),
    (nested_loops, [(_x(k), _n(v)) for k in ("pos", "neg") for v in (0, 3)], True),
    (loop_in_branch, [(_x(k), _n(v)) for k in ("pos", "neg") for v in (0, 2)], True),
    (name_first_assigned_in_loop, [(_x("mixed"), _n(v)) for v in (1, 3)], True),
    (calls_helper, [(_x(k),) for k in ("pos", "neg", "mixed")], True),
    (calls_not_to_static, [(_x(k),) for k in ("pos", "neg")], True),
    (uses_len, [(_x(k),) for k in ("pos", "mixed")], True),
]
LAYERS = [
    (Gate, [(_x(k, seed=s),) for k in ("pos", "neg") for s in (0, 1, 2)]),
    (GatedLoop, [(_x(k, seed=s),) for k in ("pos", "neg", "big") for s in (0, 1)]),
    (ListOfLayers, [(_x(k, seed=s),) for k in ("pos", "neg", "mixed") for s in (0, 1)]),
]
