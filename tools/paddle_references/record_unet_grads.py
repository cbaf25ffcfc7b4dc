"""Record one training step of examples/unet_segmentation.py's UNet from Paddle 2.6, for
tests/test_unet_training.py to compare pyfluid's loss and gradients with (same weights, same
batch). Run with a Python that has paddle 2.6 (never a pyfluid dependency):

    PADDLE_PYTHON tools/paddle_references/record_unet_grads.py --out tests/paddle_grads/unet_26.npz

The example's own source runs here with ``import paddle`` in place of ``import pyfluid as
paddle`` (so the model is the same code), in a small form: width 4, a batch of two 16 x 16
images. The .npz holds the batch (images, labels), every parameter under its structured name
(``w:<name>``), the logits, the loss and every trainable parameter's gradient
(``g:<name>``)."""
from __future__ import annotations

import argparse
import types
from pathlib import Path

import numpy as np

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "unet_segmentation.py"
WIDTH, BATCH, SIDE = 4, 2, 16


def load_example():
    source = EXAMPLE.read_text().replace("import pyfluid as paddle", "import paddle")
    module = types.ModuleType("unet_segmentation")
    exec(compile(source, str(EXAMPLE), "exec"), module.__dict__)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    example = load_example()
    images, labels = example.make_batch(np.random.default_rng(2026), BATCH, side=SIDE)
    paddle = example.paddle
    paddle.seed(11)
    model = example.UNet(width=WIDTH)
    logits = model(paddle.to_tensor(images))
    loss = example.loss_of(logits, paddle.to_tensor(labels))
    loss.backward()
    record = {"images": images, "labels": labels, "loss": np.array(float(loss), np.float64),
              "logits": logits.numpy()}
    for name, param in model.named_parameters():
        record[f"w:{name}"] = param.numpy()
        if param.grad is not None:              # BatchNorm's running statistics have none
            record[f"g:{name}"] = param.grad.numpy()
    np.savez_compressed(args.out, **record)
    print(f"loss {float(loss):.6f}; {len(record)} arrays written to {args.out}")


if __name__ == "__main__":
    main()
