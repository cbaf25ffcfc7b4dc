"""A small UNet segmenting synthetic shapes, in eager or static mode.

Each image (3 x 32 x 32) holds a few filled discs and squares of random colours on a noisy
background; the label map says, per pixel, background (0), disc (1) or square (2). Colour does
not tell the classes apart: the network must look at shape. The UNet: two encoder stages
(conv -> GroupNorm -> ReLU, max pooling between them), a BatchNorm bottleneck, a transposed
convolution and a bilinear interpolation back up, each followed by the skip connection
(concat) of the same resolution, and a 1x1 conv to the class scores; pixel-wise cross entropy,
Adam.

    python examples/unet_segmentation.py --mode eager
    python examples/unet_segmentation.py --mode static

The same code runs on PaddlePaddle with ``import paddle`` in place of ``import pyfluid``."""
from __future__ import annotations

import argparse
import time

import numpy as np

import pyfluid as paddle

SIZE, CLASSES = 32, 3


def conv_block(paddle_nn, cin: int, cout: int, groups: int = 2):
    return paddle_nn.Sequential(paddle_nn.Conv2D(cin, cout, 3, padding=1),
                                paddle_nn.GroupNorm(groups, cout), paddle_nn.ReLU())


class UNet(paddle.nn.Layer):
    """32 -> 16 -> 8 -> (transposed conv) 16 -> (bilinear) 32, with skip connections."""

    def __init__(self, in_channels: int = 3, num_classes: int = CLASSES, width: int = 8):
        super().__init__()
        nn, c = paddle.nn, width
        self.enc1 = conv_block(nn, in_channels, c)
        self.enc2 = conv_block(nn, c, 2 * c)
        self.pool = nn.MaxPool2D(2)
        self.mid = nn.Sequential(nn.Conv2D(2 * c, 4 * c, 3, padding=1), nn.BatchNorm2D(4 * c),
                                 nn.ReLU())
        self.up = nn.Conv2DTranspose(4 * c, 2 * c, 2, stride=2)
        self.dec2 = conv_block(nn, 4 * c, 2 * c)
        self.dec1 = conv_block(nn, 3 * c, c)
        self.head = nn.Conv2D(c, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        middle = self.mid(self.pool(e2))
        d2 = self.dec2(paddle.concat([self.up(middle), e2], axis=1))
        up = paddle.nn.functional.interpolate(d2, scale_factor=2, mode="bilinear",
                                              align_corners=False)
        return self.head(self.dec1(paddle.concat([up, e1], axis=1)))


def make_batch(rng: np.random.Generator, size: int, side: int = SIZE):
    """Images [size, 3, side, side] float32 and labels [size, 1, side, side] int64."""
    rows, cols = np.mgrid[0:side, 0:side]
    images = rng.normal(0.0, 0.1, (size, 3, side, side)).astype(np.float32)
    labels = np.zeros((size, 1, side, side), dtype=np.int64)
    for i in range(size):
        for _ in range(rng.integers(1, 4)):
            kind = rng.integers(1, CLASSES)
            r = rng.integers(3, side // 4)
            cy, cx = rng.integers(r, side - r, size=2)
            if kind == 1:
                mask = (rows - cy) ** 2 + (cols - cx) ** 2 <= r * r
            else:
                mask = (np.abs(rows - cy) <= r) & (np.abs(cols - cx) <= r)
            images[i, :, mask] += rng.uniform(-1.0, 1.0, 3).astype(np.float32)
            labels[i, 0, mask] = kind
    return images, labels


def pixel_accuracy(logits: np.ndarray, labels: np.ndarray) -> float:
    return float((logits.argmax(axis=1) == labels[:, 0]).mean())


def loss_of(logits, labels):
    return paddle.nn.functional.cross_entropy(logits, labels, axis=1)


def train_eager(steps: int, batch: int, seed: int = 0, log_every: int = 20) -> list[float]:
    paddle.disable_static()
    paddle.seed(seed)
    rng = np.random.default_rng(seed)
    model = UNet()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for step in range(steps):
        images, labels = make_batch(rng, batch)
        logits = model(paddle.to_tensor(images))
        loss = loss_of(logits, paddle.to_tensor(labels))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
        if log_every and step % log_every == 0:
            print(f"eager step {step}: loss {losses[-1]:.4f}, pixel accuracy "
                  f"{pixel_accuracy(logits.numpy(), labels):.3f}")
    return losses


def train_static(steps: int, batch: int, seed: int = 0, log_every: int = 20) -> list[float]:
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        main.random_seed = startup.random_seed = seed + 1
        with paddle.static.program_guard(main, startup):
            images = paddle.static.data("images", [None, 3, SIZE, SIZE], "float32")
            labels = paddle.static.data("labels", [None, 1, SIZE, SIZE], "int64")
            logits = UNet()(images)
            loss = loss_of(logits, labels)
            paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        rng = np.random.default_rng(seed)
        losses = []
        for step in range(steps):
            x, y = make_batch(rng, batch)
            value, scores = exe.run(main, feed={"images": x, "labels": y},
                                    fetch_list=[loss, logits])
            losses.append(float(value))
            if log_every and step % log_every == 0:
                print(f"static step {step}: loss {losses[-1]:.4f}, pixel accuracy "
                      f"{pixel_accuracy(scores, y):.3f}")
        return losses
    finally:
        paddle.disable_static()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("eager", "static"), default="eager")
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args()
    start = time.perf_counter()
    train = train_eager if args.mode == "eager" else train_static
    losses = train(args.steps, args.batch)
    head, tail = np.mean(losses[:10]), np.mean(losses[-10:])
    print(f"{args.mode}: mean loss of the first 10 steps {head:.4f}, of the last 10 "
          f"{tail:.4f} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
