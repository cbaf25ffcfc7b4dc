"""An LSTM text classifier on synthetic token data, in eager or static mode.

Each sentence is a run of token ids (1..VOCAB-1, padded with 0 to MAX_LEN) of random length;
tokens 1..9 are "positive" words, 10..19 "negative" ones, the rest neutral. The label says
which kind the sentence holds more of, so the model must count over the whole sequence:
embedding -> bidirectional LSTM (lengths masked) -> the last forward and backward states ->
linear -> cross entropy, trained with Adam.

    python examples/lstm_text_classifier.py --mode eager --steps 300
    python examples/lstm_text_classifier.py --mode static --steps 300

The same code runs on PaddlePaddle with ``import paddle`` in place of ``import pyfluid``."""
from __future__ import annotations

import argparse
import time

import numpy as np

import pyfluid as paddle

VOCAB, MAX_LEN, POSITIVE, NEGATIVE = 50, 12, range(1, 10), range(10, 20)


class LSTMClassifier(paddle.nn.Layer):
    """Embedding -> LSTM (bidirectional) -> final states of both directions -> Linear."""

    def __init__(self, vocab_size: int = VOCAB, embed_dim: int = 16, hidden_size: int = 32,
                 num_classes: int = 2, num_layers: int = 1):
        super().__init__()
        self.embedding = paddle.nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.lstm = paddle.nn.LSTM(embed_dim, hidden_size, num_layers=num_layers,
                                   direction="bidirect")
        self.fc = paddle.nn.Linear(2 * hidden_size, num_classes)

    def forward(self, tokens, lengths):
        _, (h, _) = self.lstm(self.embedding(tokens), sequence_length=lengths)
        return self.fc(paddle.concat([h[-2], h[-1]], axis=-1))   # last layer, both directions


def make_batch(rng: np.random.Generator, size: int):
    """Token ids [size, MAX_LEN] int64, lengths [size] int64, labels [size, 1] int64."""
    lengths = rng.integers(3, MAX_LEN + 1, size=size)
    tokens = np.zeros((size, MAX_LEN), dtype=np.int64)
    labels = np.zeros((size, 1), dtype=np.int64)
    for i, n in enumerate(lengths):
        words = rng.integers(1, VOCAB, size=n)
        tokens[i, :n] = words
        pos = np.isin(words, POSITIVE).sum()
        neg = np.isin(words, NEGATIVE).sum()
        if pos == neg:                         # no ties: flip one neutral word
            words[0] = POSITIVE[0]
            tokens[i, 0] = words[0]
            pos += 1
        labels[i, 0] = int(pos > neg)
    return tokens, lengths.astype(np.int64), labels


def train_eager(steps: int, batch: int, seed: int = 0, log_every: int = 50) -> list[float]:
    paddle.disable_static()
    paddle.seed(seed)
    rng = np.random.default_rng(seed)
    model = LSTMClassifier()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for step in range(steps):
        tokens, lengths, labels = make_batch(rng, batch)
        logits = model(paddle.to_tensor(tokens), paddle.to_tensor(lengths))
        loss = paddle.nn.functional.cross_entropy(logits, paddle.to_tensor(labels))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
        if log_every and step % log_every == 0:
            print(f"eager step {step}: loss {losses[-1]:.4f}")
    return losses


def train_static(steps: int, batch: int, seed: int = 0, log_every: int = 50) -> list[float]:
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        main.random_seed = startup.random_seed = seed + 1
        with paddle.static.program_guard(main, startup):
            tokens = paddle.static.data("tokens", [None, MAX_LEN], "int64")
            lengths = paddle.static.data("lengths", [None], "int64")
            labels = paddle.static.data("labels", [None, 1], "int64")
            logits = LSTMClassifier()(tokens, lengths)
            loss = paddle.nn.functional.cross_entropy(logits, labels)
            paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        rng = np.random.default_rng(seed)
        losses = []
        for step in range(steps):
            t, n, y = make_batch(rng, batch)
            value, = exe.run(main, feed={"tokens": t, "lengths": n, "labels": y},
                             fetch_list=[loss])
            losses.append(float(value))
            if log_every and step % log_every == 0:
                print(f"static step {step}: loss {losses[-1]:.4f}")
        return losses
    finally:
        paddle.disable_static()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("eager", "static"), default="eager")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()
    start = time.perf_counter()
    train = train_eager if args.mode == "eager" else train_static
    losses = train(args.steps, args.batch)
    head, tail = np.mean(losses[:20]), np.mean(losses[-20:])
    print(f"{args.mode}: mean loss of the first 20 steps {head:.4f}, of the last 20 "
          f"{tail:.4f} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
