"""Record one training step of examples/lstm_text_classifier.py's model from Paddle 2.6, for
tests/test_lstm_training.py to compare pyfluid's loss and gradients with (same weights, same
batch). Run with a Python that has paddle 2.6 (never a pyfluid dependency):

    PADDLE_PYTHON tools/paddle_references/record_lstm_grads.py --out tests/paddle_grads/lstm_classifier_26.npz

The model is the example's (written again here with ``import paddle``, so this script needs no
pyfluid) in a 2-layer form: embedding (padding_idx 0) -> 2-layer bidirectional LSTM with
sequence lengths -> both directions' final states -> linear -> cross entropy. The .npz holds the
batch (tokens, lengths, labels), every parameter under its structured name (``w:<name>``), the
loss and the gradient of every parameter (``g:<name>``)."""
from __future__ import annotations

import argparse

import numpy as np

VOCAB, MAX_LEN, BATCH = 50, 12, 6


def make_model(paddle):
    class LSTMClassifier(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.embedding = paddle.nn.Embedding(VOCAB, 8, padding_idx=0)
            self.lstm = paddle.nn.LSTM(8, 6, num_layers=2, direction="bidirect")
            self.fc = paddle.nn.Linear(12, 2)

        def forward(self, tokens, lengths):
            _, (h, _) = self.lstm(self.embedding(tokens), sequence_length=lengths)
            return self.fc(paddle.concat([h[-2], h[-1]], axis=-1))
    return LSTMClassifier()


def make_batch():
    rng = np.random.default_rng(2026)
    lengths = rng.integers(2, MAX_LEN + 1, size=BATCH).astype(np.int64)
    tokens = np.zeros((BATCH, MAX_LEN), dtype=np.int64)
    for i, n in enumerate(lengths):
        tokens[i, :n] = rng.integers(1, VOCAB, size=n)
    labels = rng.integers(0, 2, size=(BATCH, 1)).astype(np.int64)
    return tokens, lengths, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    import paddle
    paddle.seed(7)
    model = make_model(paddle)
    tokens, lengths, labels = make_batch()
    logits = model(paddle.to_tensor(tokens), paddle.to_tensor(lengths))
    loss = paddle.nn.functional.cross_entropy(logits, paddle.to_tensor(labels))
    loss.backward()
    record = {"tokens": tokens, "lengths": lengths, "labels": labels,
              "loss": np.array(float(loss), dtype=np.float64)}
    for name, param in model.named_parameters():
        record[f"w:{name}"] = param.numpy()
        record[f"g:{name}"] = param.grad.numpy()
    np.savez_compressed(args.out, **record)
    print(f"loss {float(loss):.6f}; {len(record)} arrays written to {args.out}")


if __name__ == "__main__":
    main()
