"""Dygraph layers: Embedding, LayerNorm, Dropout in train/eval, GELU, sublayers, parameters,
train()/eval() flags, buffers in state_dict and no_grad inference."""
import numpy as np
import paddle


class Encoder(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.embed = paddle.nn.Embedding(10, 4, padding_idx=0)
        self.norm = paddle.nn.LayerNorm(4)
        self.drop = paddle.nn.Dropout(0.5)
        self.proj = paddle.nn.Linear(4, 2)
        self.act = paddle.nn.GELU()

    def forward(self, ids):
        return self.proj(self.act(self.drop(self.norm(self.embed(ids)))))


rng = np.random.RandomState(41)
net = Encoder()
for name, param in net.named_parameters():
    param.set_value(rng.uniform(-1, 1, param.shape).astype("float32"))
ids = paddle.to_tensor(np.array([[0, 3, 9], [5, 5, 1]], "int64"))
print("sublayers", [name for name, _ in net.named_sublayers()])
print("num_params", len(net.parameters()), sum(int(np.prod(p.shape)) for p in net.parameters()))
print("training", net.training, net.drop.training)
net.eval()
print("eval_flags", net.training, net.drop.training)
with paddle.no_grad():
    out = net(ids)
print("eval_out", out.numpy().tolist(), out.stop_gradient)
net.train()
train_out = net(ids)
print("train_shape", train_out.shape, train_out.stop_gradient)
print("padding_row", net.embed.weight.numpy()[0].tolist())
print("state_keys", list(net.state_dict().keys()))
