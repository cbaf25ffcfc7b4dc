"""Operators on static Variables: arithmetic, scalars, comparisons, matmul and dtypes."""
import numpy as np
import paddle

paddle.enable_static()
a = paddle.static.data("a", [2, 3], "float32")
b = paddle.static.data("b", [2, 3], "float32")
v = paddle.static.data("v", [3], "float32")
results = {
    "add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "radd": 1.0 + a, "rsub": 2.0 - a,
    "rmul": 3 * a, "rdiv": 1.0 / b, "neg": -a, "pow": a ** 2, "bcast": a + v,
    "matmul": a @ paddle.transpose(b, [1, 0]), "floordiv": paddle.floor_divide(a, b),
    "mod": paddle.remainder(a, b),
}
compares = {"gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= 1.0, "eq": a == b, "ne": a != b}
exe = paddle.static.Executor(paddle.CPUPlace())
feed = {"a": np.array([[1, -2, 3], [4, 5, -6]], "float32"),
        "b": np.array([[2, 2, 3], [-1, 0.5, 4]], "float32"),
        "v": np.array([10, 20, 30], "float32")}
names = list(results) + list(compares)
fetched = exe.run(feed=feed, fetch_list=list(results.values()) + list(compares.values()))
for name, value in zip(names, fetched):
    print(name, value.tolist(), str(value.dtype))
print("cmp_dtype", str(compares["gt"].dtype), "add_shape", list(results["add"].shape))
print("op_types", [op.type for op in paddle.static.default_main_program().global_block().ops])
