"""paddle.jit.to_static's API around the conversion: decorator forms, keywords, the
transformed code, caching, enable_to_static, not_to_static, ignore_module, and errors that
name the user's line (a Tensor used as a Python bool where nothing is converted, a name used
before assignment, branches that disagree, an error raised inside a converted branch)."""
import inspect
import sys
import traceback

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.framework.errors import Dy2StaticError
from pyfluid.jit.dy2static import convert_to_static, why_not_converted
from pyfluid.static import InputSpec


@pytest.fixture(autouse=True)
def dygraph():
    paddle.disable_static()
    paddle.jit.enable_to_static(True)
    yield
    paddle.jit.enable_to_static(True)


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def relu_or_negate(x):
    if paddle.sum(x) > 0:
        h = paddle.nn.functional.relu(x)
    else:
        h = -x
    return h


def test_decorator_forms_and_keywords():
    @paddle.jit.to_static
    def plain(x, scale=2.0):
        return x * scale if paddle.mean(x) > 0 else x

    @paddle.jit.to_static(input_spec=[InputSpec([None, 2], "float32", "x")], full_graph=True)
    def with_spec(x):
        return relu_or_negate(x)

    x = paddle.ones([3, 2])
    np.testing.assert_allclose(plain(x, scale=3.0).numpy(), 3 * np.ones((3, 2)))
    np.testing.assert_allclose(plain(x=-x).numpy(), -np.ones((3, 2)))
    np.testing.assert_allclose(with_spec(-x).numpy(), np.ones((3, 2)))
    assert with_spec.concrete_program.inputs[0].shape == (-1, 2)
    assert "_jst.convert_ifelse" in paddle.jit.to_static(relu_or_negate).code


def test_conversion_is_cached_and_not_to_static_is_respected():
    assert convert_to_static(relu_or_negate) is convert_to_static(relu_or_negate)

    @paddle.jit.not_to_static
    def keep(x):
        return x + 1

    assert convert_to_static(keep) is keep
    square = lambda v: v * v                                    # noqa: E731
    assert convert_to_static(square) is square and why_not_converted(square) == "it is a lambda"
    assert convert_to_static(print) is print


def test_enable_to_static_false_runs_python():
    calls = []

    @paddle.jit.to_static
    def f(x):
        calls.append(paddle.in_dynamic_mode())
        return x * 2

    f(paddle.ones([2]))
    paddle.jit.enable_to_static(False)
    f(paddle.ones([2]))
    f(paddle.ones([2]))
    assert calls == [False, True, True]          # traced once, then run eagerly
    with pytest.raises(TypeError, match="must be bool"):
        paddle.jit.enable_to_static(1)


def test_one_program_per_input_signature_and_training_flag():
    layer = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Dropout(0.5))
    static = paddle.jit.to_static(layer)
    static(paddle.ones([3, 2]))
    static(paddle.ones([3, 2]))
    static(paddle.ones([4, 2]))
    layer.eval()
    static(paddle.ones([4, 2]))
    assert len(static.forward._programs) == 3


def _python_if_on_tensor(x):
    if paddle.sum(x) > 0:                       # the line the error must name
        return x
    return -x


def test_tensor_as_python_bool_where_nothing_is_converted_names_the_line():
    helper = paddle.jit.not_to_static(_python_if_on_tensor)

    def uses_helper(x):
        return helper(x) + 1

    with pytest.raises(Dy2StaticError) as info:
        paddle.jit.to_static(uses_helper)(paddle.ones([2]))
    line = _line_of(_python_if_on_tensor, "if paddle.sum(x) > 0")
    assert f"{__file__}:{line}" in str(info.value)
    assert "not_to_static" in str(info.value)


def test_tensor_bool_is_refused_only_while_converting():
    paddle.enable_static()
    x = paddle.static.data("x", [2], "float32")
    assert bool(x)                               # Paddle's plain static mode: always true
    paddle.disable_static()


def maybe_assigned(x, flag):
    if flag:
        y = x * 2
    return y


def test_name_used_before_assignment():
    static = paddle.jit.to_static(maybe_assigned)
    np.testing.assert_allclose(static(paddle.ones([2]), True).numpy(), [2, 2])
    with pytest.raises(UnboundLocalError, match="local variable 'y' is used before it is "
                                                "assigned"):
        static(paddle.ones([2]), False)


def branches_disagree(x):
    if paddle.sum(x) > 0:
        y = x
    else:
        y = None
    return y


def test_branches_that_disagree_name_the_variable_and_the_if():
    with pytest.raises(TypeError) as info:
        paddle.jit.to_static(branches_disagree)(paddle.ones([2]))
    line = _line_of(branches_disagree, "if paddle.sum(x) > 0")
    assert "`y` is a Tensor" in str(info.value) and "NoneType None" in str(info.value)
    assert f"{__file__}:{line}" in str(info.value)


def bad_matmul_in_branch(x):
    if paddle.mean(x) > 0:
        y = x + 1
    else:
        y = paddle.matmul(x, paddle.ones([3, 3]))     # shapes do not fit
    return y


def test_error_inside_a_converted_branch_points_at_the_user_line():
    with pytest.raises(ValueError) as info:
        paddle.jit.to_static(bad_matmul_in_branch)(paddle.ones([2, 2]))
    frames = traceback.extract_tb(info.value.__traceback__)
    line = _line_of(bad_matmul_in_branch, "paddle.matmul(x, paddle.ones([3, 3]))")
    assert any(f.filename == __file__ and f.lineno == line and "paddle.matmul" in f.line
               for f in frames)
    if sys.version_info >= (3, 11):
        assert any(f"{__file__}:{line}" in note for note in info.value.__notes__)


def test_while_condition_that_never_changes_is_refused():
    def spin(x):
        while paddle.sum(x) > 0:
            print("never changes x")
        return x

    with pytest.raises(ValueError, match="assigns no variable"):
        paddle.jit.to_static(spin)(paddle.ones([2]))


class Counter(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.__scale = 3.0                     # a private (mangled) attribute

    def forward(self, x):
        total = x * 0
        for _ in range(len(x)):
            total = total + x * self.__scale
        return total


def test_private_names_and_len_in_a_layer():
    layer = Counter()
    static = paddle.jit.to_static(Counter())
    x = paddle.ones([4])
    np.testing.assert_allclose(static(x).numpy(), layer(x).numpy())


def test_ignore_module_keeps_its_functions_unconverted():
    import dy2static_cases
    paddle.jit.ignore_module([dy2static_cases])
    try:
        from pyfluid.jit.dy2static.convert_call import call
        assert call(dy2static_cases.if_else) is dy2static_cases.if_else
    finally:
        from pyfluid.jit.dy2static import convert_call
        convert_call._IGNORED_MODULES.discard("dy2static_cases")


class Base(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x)


class Derived(Base):
    def forward(self, x, *extra, scale=1.0):
        h = super().forward(x)                 # zero-argument super() in converted code

        def shift(v):                          # a nested function, converted with forward
            if paddle.mean(v) > 0:
                return v - 1.0
            return v + 1.0

        while True:                            # Python condition, Tensor break
            h = shift(h) * scale
            if paddle.max(paddle.abs(h)) < 2.0:
                break
        return h + len(extra)


def test_super_nested_function_varargs_and_while_true():
    paddle.seed(3)
    layer = Derived()
    static = paddle.jit.to_static(Derived())
    static.set_state_dict(layer.state_dict())
    for k in (0.5, 1.0, 3.0):
        x = paddle.to_tensor(np.random.default_rng(int(k * 10)).standard_normal((2, 3))
                             .astype("float32") * k)
        np.testing.assert_allclose(static(x, 1, 2, scale=0.5).numpy(),
                                   layer(x, 1, 2, scale=0.5).numpy(), rtol=1e-5, atol=1e-6)


def test_tensor_index_and_tensor_array_in_static_mode():
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [None, 3], "float32")
        i = paddle.full([], 1, "int64")
        row = x[i]
        array = paddle.tensor.create_array("float32")
        array.append(row)
        array.append(row * 2.0)
        last = array[-1]
        with pytest.raises(TypeError, match="support `append` method"):
            x.append(row)
    exe = paddle.static.Executor()
    value = np.arange(9, dtype="float32").reshape(3, 3)
    got = exe.run(main, feed={"x": value}, fetch_list=[row, last])
    np.testing.assert_array_equal(got[0], value[1])
    np.testing.assert_array_equal(got[1], value[1] * 2)
    paddle.disable_static()


def test_rollback_and_conditional_expression_errors():
    layer = paddle.jit.to_static(Counter())
    assert isinstance(layer.forward, paddle.jit.StaticFunction)
    layer.forward.rollback()
    assert not isinstance(layer.forward, paddle.jit.StaticFunction)

    def mismatch(x):
        return x if paddle.sum(x) > 0 else "negative"

    with pytest.raises(TypeError, match="false branch of the `if` at .*test_dy2static_api.py"):
        paddle.jit.to_static(mismatch)(paddle.ones([2]))


def test_set_code_level_and_verbosity_report_conversions(capsys):
    def fresh(x):
        if paddle.mean(x) > 0:
            x = x * 2
        return x

    paddle.jit.set_code_level(100, also_to_stdout=True)
    paddle.jit.set_verbosity(1, also_to_stdout=True)
    try:
        convert_to_static(fresh)
        convert_to_static(lambda v: v)
    finally:
        paddle.jit.set_code_level(0)
        paddle.jit.set_verbosity(0)
    out = capsys.readouterr().out
    assert "_jst.convert_ifelse" in out and "is run as it is: it is a lambda" in out


class Scaled(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 2)
        self.scale = paddle.to_tensor([2.0, 3.0])       # a plain Tensor attribute
        self.register_buffer("offset", paddle.to_tensor([0.5, -0.5]))

    def forward(self, x):
        return self.fc(x) * self.scale + self.offset


def test_tensor_attributes_and_buffers_are_read_at_each_call():
    layer = Scaled()
    static = paddle.jit.to_static(Scaled())
    static.set_state_dict(layer.state_dict())
    static.scale = layer.scale
    x = paddle.ones([1, 2])
    np.testing.assert_allclose(static(x).numpy(), layer(x).numpy(), rtol=1e-6)
    layer.scale._array = layer.scale._array * 2          # updates are seen by the program
    np.testing.assert_allclose(static(x).numpy(), layer(x).numpy(), rtol=1e-6)


def matches(x, mode):
    match mode:
        case "double":
            if paddle.mean(x) > 0:
                return x * 2.0
            y = x
        case {"shift": amount}:
            y = x + amount
        case _:
            y = -x
    return y


def test_match_statement_cases_are_converted():
    static = paddle.jit.to_static(matches)
    for mode in ("double", {"shift": 3.0}, "other"):
        for sign in (1.0, -1.0):
            x = paddle.full([2], sign)
            np.testing.assert_allclose(static(x, mode).numpy(), matches(x, mode).numpy())


def count_appended(x, n):
    outs = []
    for _ in range(n):
        x = x + 1.0
        outs.append(x)
    return len(outs), outs[-1] if len(outs) else x


def test_list_appended_in_a_tensor_loop_becomes_a_tensor_array():
    static = paddle.jit.to_static(count_appended)
    for n in (1, 3):
        count, last = static(paddle.zeros([2]), paddle.to_tensor([n]))
        assert count.numpy().item() == n
        np.testing.assert_allclose(last.numpy(), [n, n])
    program = next(iter(static._programs.values())).main_program
    types = {op.type for block in program.blocks for op in block.ops}
    assert {"write_to_array", "lod_array_length", "read_from_array"} <= types
