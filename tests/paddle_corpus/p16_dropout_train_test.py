"""Dropout: identity-like in the test clone, masked and rescaled in training."""
import numpy as np
import paddle
import paddle.nn.functional as F

paddle.enable_static()
x = paddle.static.data("x", [4, 50], "float32")
up = F.dropout(x, p=0.5, training=True)
down = F.dropout(x, p=0.5, training=True, mode="downscale_in_infer")
up_eval = F.dropout(x, p=0.5, training=False)
down_eval = F.dropout(x, p=0.5, training=False, mode="downscale_in_infer")
main = paddle.static.default_main_program()
test_program = main.clone(for_test=True)
exe = paddle.static.Executor(paddle.CPUPlace())
data = np.full([4, 50], 2.0, "float32")
u, d, ue, de = exe.run(main, feed={"x": data}, fetch_list=[up, down, up_eval, down_eval])
print("train_up_values", sorted(set(u.ravel().tolist())))
print("train_down_values", sorted(set(d.ravel().tolist())))
print("eval_up", ue[0, :3].tolist(), "eval_down", de[0, :3].tolist())
tu, td = exe.run(test_program, feed={"x": data}, fetch_list=[up, down])
print("test_clone_up", sorted(set(tu.ravel().tolist())))
print("test_clone_down", sorted(set(td.ravel().tolist())))
print("dropout_attrs", [(op.attr("dropout_prob"), op.attr("is_test"), op.attr("dropout_implementation"))
                        for op in test_program.global_block().ops if op.type == "dropout"])
