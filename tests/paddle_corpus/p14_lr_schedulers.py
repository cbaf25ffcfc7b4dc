"""Learning-rate schedulers driving a static SGD: the lr each step and the weights."""
import numpy as np
import paddle

paddle.enable_static()


def train(scheduler, label):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 2], "float32")
        out = paddle.static.nn.fc(x, 1, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(1.0)), bias_attr=False)
        loss = paddle.mean(out)
        paddle.optimizer.SGD(learning_rate=scheduler).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    lrs = []
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for step in range(6):
            lrs.append(scheduler.get_lr())
            exe.run(main, feed={"x": np.ones([2, 2], "float32")}, fetch_list=[loss])
            scheduler.step()
        weight = np.array(scope.find_var(main.all_parameters()[0].name).get_tensor())
    print(label, "lrs", lrs)
    print(label, "weight", weight.ravel().tolist())


train(paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.5), "step")
train(paddle.optimizer.lr.PiecewiseDecay(boundaries=[1, 3], values=[0.1, 0.05, 0.01]), "piecewise")
train(paddle.optimizer.lr.ExponentialDecay(learning_rate=0.2, gamma=0.9), "exponential")
train(paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=0.3, T_max=4), "cosine")
train(paddle.optimizer.lr.MultiStepDecay(learning_rate=0.4, milestones=[2, 4], gamma=0.1), "multistep")
train(paddle.optimizer.lr.LambdaDecay(learning_rate=0.1, lr_lambda=lambda e: 0.9 ** e), "lambda")
