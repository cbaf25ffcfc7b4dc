"""Layers whose ``forward`` uses Python control flow on Tensors (if/elif/else, while, for over
range(Tensor), break/continue, early return, list appends): Paddle code, converted by Paddle 2.6
(gen_control_flow_26.py, gen_pir_33.py record tests/paddle_models/cf26/d2s_*) and by pyfluid
with only the import changed (tests/test_dy2static_paddle.py). Some are not valid eager code,
e.g. ``paddle.cast`` of the loop index of ``range(Tensor)``: only their conversions run."""
import paddle
from paddle import nn


class IfElse(nn.Layer):
    """if / else on a Tensor predicate."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if paddle.mean(x) > 0:
            y = h * 2.0 + 1.0
        else:
            y = paddle.tanh(h) - 1.0
        return y


class IfElifElse(nn.Layer):
    """if / elif / else, branches producing different ops, plus a nested if."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        s = paddle.sum(x)
        h = self.fc(x)
        if s > 5.0:
            y = paddle.nn.functional.relu(h)
            if paddle.max(x) > 3.0:
                y = y * 0.5
        elif s > 0.0:
            y = paddle.exp(h * 0.1)
        else:
            y = -h
        return y, s


class WhileLoop(nn.Layer):
    """while on a Tensor condition, loop count from an int feed."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, n):
        i = paddle.zeros([1], "int64")
        h = self.fc(x)
        while i < n:
            h = paddle.tanh(h) * 1.5 + 0.1
            i += 1
        return h, i


class ForRange(nn.Layer):
    """for i in range(tensor), accumulating with the loop variable."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, n):
        acc = paddle.zeros_like(x)
        h = self.fc(x)
        for i in range(n):
            acc = acc + h * paddle.cast(i + 1, "float32")
        return acc


class BreakContinue(nn.Layer):
    """for over range(tensor) with continue and break on Tensor conditions."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, n, limit):
        h = self.fc(x)
        s = paddle.zeros([1], "float32")
        count = paddle.zeros([1], "int64")
        for i in range(n):
            if i % 2 == 0:
                continue
            s = s + paddle.mean(paddle.abs(h)) * paddle.cast(i, "float32")
            count += 1
            if s > limit:
                break
        return s, count


class EarlyReturn(nn.Layer):
    """early return inside an if on a Tensor."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if paddle.min(x) > 0:
            return h + 10.0
        h = h * h
        if paddle.max(x) < 0:
            return h - 10.0
        return h


class NestedLoopIf(nn.Layer):
    """while with an if/else inside and a nested for range(tensor)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, n):
        h = self.fc(x)
        i = paddle.zeros([1], "int64")
        while i < n:
            if paddle.mean(h) > 0:
                h = h - 0.5
            else:
                h = h + 0.25
            for _ in range(i):
                h = h * 0.9
            i = i + 1
        return h


class ListAppend(nn.Layer):
    """list.append in a loop on a Tensor bound -> tensor array (write_to_array,
    lod_array_length), then indexing and len() on the list."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, n):
        h = self.fc(x)
        # Paddle 2.6 quirk: paddle.concat/stack of such a list becomes
        # tensor_array_to_tensor, which fails at run time in the saved program
        # ("Tensor holds no memory"), so the list is only indexed here.
        outs = [h]
        cur = h * 1.0
        for i in range(n):
            cur = paddle.sin(cur) + 0.5
            outs.append(cur * 1.0)
        return outs[-1], cur
