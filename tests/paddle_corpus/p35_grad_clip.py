"""Gradient clipping in static mode: ClipGradByGlobalNorm and ClipGradByValue with SGD."""
import numpy as np
import paddle

paddle.enable_static()


def train(clip, label):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 2], "float32")
        out = paddle.static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(1.0)))
        loss = paddle.sum(out * out)
        paddle.optimizer.SGD(0.1, grad_clip=clip).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        for _ in range(2):
            exe.run(main, feed={"x": np.array([[3.0, 4.0]], "float32")}, fetch_list=[loss])
        scope = paddle.static.global_scope()
        print(label, {p.name: np.array(scope.find_var(p.name).get_tensor()).tolist()
                      for p in main.all_parameters()})


train(paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0), "global_norm")
train(paddle.nn.ClipGradByValue(max=0.5, min=-0.5), "value")
train(paddle.nn.ClipGradByNorm(clip_norm=2.0), "norm")
