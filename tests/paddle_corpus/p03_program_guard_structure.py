"""Separate programs under program_guard: op types, parameter and variable names."""
import numpy as np
import paddle

paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 4], "float32")
    label = paddle.static.data("label", [None, 1], "float32")
    h = paddle.static.nn.fc(x, 5, activation="tanh")
    out = paddle.static.nn.fc(h, 1)
    loss = paddle.mean(paddle.nn.functional.square_error_cost(out, label))
    paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)

print("main_ops", [op.type for op in main.global_block().ops])
print("startup_ops", [op.type for op in startup.global_block().ops])
print("params", sorted(p.name for p in main.all_parameters()))
print("num_blocks", main.num_blocks)
print("h_name", h.name, "out_name", out.name, "loss_name", loss.name)
print("h_shape", list(h.shape), "out_shape", list(out.shape))
persist = sorted(v.name for v in main.list_vars() if v.persistable)
print("persistables", persist)
print("default_main_empty", len(paddle.static.default_main_program().global_block().ops))
print("x_stop_gradient", x.stop_gradient, "h_stop_gradient", h.stop_gradient)
