"""Inspecting a static program: ops' slots and attributes, variables, parameters, clones."""
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 8], "float32")
    h = paddle.static.nn.fc(x, 4, activation="relu", name="hidden")
    out = paddle.nn.functional.softmax(h, axis=-1)
block = main.global_block()
for op in block.ops:
    print("op", op.type, sorted(op.input_names), sorted(op.output_names),
          {n: op.input(n) for n in sorted(op.input_names)}, {n: op.output(n) for n in sorted(op.output_names)})
mul = block.ops[0]
print("mul_attrs", mul.attr("x_num_col_dims"), mul.attr("y_num_col_dims"), mul.has_attr("x_num_col_dims"))
print("softmax_axis", block.ops[-1].attr("axis"))
print("vars", sorted(block.vars))
w = block.var("hidden.w_0")
print("param", w.name, w.shape, w.persistable, w.stop_gradient, w.trainable, str(w.dtype))
print("data", x.name, x.shape, x.persistable, x.stop_gradient, x.lod_level)
print("startup", [(op.type, op.output("Out")) for op in startup.global_block().ops])
clone = main.clone()
print("clone", [op.type for op in clone.global_block().ops], clone.global_block().var("hidden.w_0").shape)
print("num_ops", len(block.ops), "has_var", block.has_var("hidden.b_0"), block.has_var("nope"))
print("param_names", [p.name for p in block.all_parameters()])
