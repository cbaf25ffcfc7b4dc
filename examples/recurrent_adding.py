"""A recurrent network on the adding problem, with its time loop and a branch in the program:
static-graph control flow written as Paddle code.

Each sample is a sequence of T steps, each step a value in [0, 1) and a marker; two steps are
marked and the target is the sum of their values. The model runs a tanh cell over the steps
with ``paddle.static.nn.while_loop`` (the loop reads step t of the time-major input and
writes the hidden state into a tensor array), and reads the last state out through
``paddle.static.nn.cond``: one head for batches whose mean state is positive, another
otherwise, so the branch taken changes from batch to batch. It trains with Adam, is saved with
``save_inference_model``, reloaded and checked against the trained program.

    python examples/recurrent_adding.py [--steps 1500] [--length 8] [--hidden 32] [--out DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import pyfluid as paddle
from pyfluid import static

nn = static.nn


def adding_problem(rng: np.random.Generator, batch: int, length: int) -> tuple:
    """Inputs [length, batch, 2] (time-major: value, marker) and targets [batch, 1]."""
    values = rng.uniform(0, 1, (batch, length)).astype(np.float32)
    markers = np.zeros((batch, length), np.float32)
    for row in markers:
        row[rng.choice(length, 2, replace=False)] = 1.0
    inputs = np.stack([values, markers], axis=-1).transpose(1, 0, 2)
    return np.ascontiguousarray(inputs), (values * markers).sum(axis=1, keepdims=True)


def build(length: int, hidden: int):
    """The network: (program, startup, feeds, prediction, loss, taken branch)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        seq = static.data("seq", [length, None, 2], "float32")
        target = static.data("target", [None, 1], "float32")
        w_x = static.create_parameter([2, hidden], "float32", name="cell_wx")
        w_h = static.create_parameter([hidden, hidden], "float32", name="cell_wh",
                                      default_initializer=paddle.nn.initializer.Normal(0, 0.1))
        b = static.create_parameter([hidden], "float32", name="cell_b", is_bias=True)
        states = paddle.tensor.create_array("float32")
        h0 = paddle.zeros_like(paddle.matmul(seq[0], w_x))          # [batch, hidden]
        steps = paddle.full([1], length, "int64")

        def cell(t, h, states):                    # one time step of the recurrent cell
            x_t = paddle.squeeze(paddle.gather(seq, t, axis=0), axis=[0])
            h = paddle.tanh(paddle.matmul(x_t, w_x) + paddle.matmul(h, w_h) + b)
            paddle.tensor.array_write(h, t, array=states)
            return [t + 1, h, states]
        _, last, states = nn.while_loop(lambda t, h, s: t < steps, cell,
                                        [paddle.zeros([1], "int64"), h0, states])
        stacked, _ = paddle.tensor.tensor_array_to_tensor(states, axis=0, use_stack=True)
        history = paddle.mean(stacked, axis=0)                   # the mean state over time
        positive = paddle.mean(last) > 0
        pred = nn.cond(positive, lambda: static.nn.fc(last, 1, name="head_pos"),
                       lambda: static.nn.fc(last, 1, name="head_neg")) \
            + static.nn.fc(history, 1, name="readout")
        loss = paddle.mean((pred - target) * (pred - target))
    return main, startup, seq, pred, loss, positive


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--length", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", default="recurrent_adding_out")
    args = parser.parse_args(argv)
    paddle.enable_static()
    paddle.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    main_program, startup, seq, pred, loss, positive = build(args.length, args.hidden)
    test_program = main_program.clone(for_test=True)
    with static.program_guard(main_program, startup):
        paddle.optimizer.Adam(args.lr).minimize(loss)
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    test_x, test_y = adding_problem(rng, 512, args.length)
    baseline = float(np.mean((test_y - test_y.mean()) ** 2))   # predicting the mean
    start, losses, branches = time.time(), [], set()
    for step in range(args.steps):
        x, y = adding_problem(rng, args.batch_size, args.length)
        value, taken = exe.run(main_program, feed={"seq": x, "target": y},
                               fetch_list=[loss, positive])
        losses.append(float(value))
        branches.add(bool(taken))
        if (step + 1) % max(1, args.steps // 10) == 0:
            print(f"step {step + 1}: loss {np.mean(losses[-50:]):.4f}")
    test_pred, = exe.run(test_program, feed={"seq": test_x, "target": test_y},
                         fetch_list=[pred])
    test_mse = float(np.mean((test_pred - test_y) ** 2))
    os.makedirs(args.out, exist_ok=True)
    prefix = os.path.join(args.out, "model", "recurrent_adding")
    static.save_inference_model(prefix, [seq], [pred], exe, program=test_program)
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    reloaded, = exe.run(program, feed={feeds[0]: test_x}, fetch_list=fetches)
    summary = {"steps": args.steps, "seconds": round(time.time() - start, 2),
               "final_train_loss": float(np.mean(losses[-50:])), "test_mse": test_mse,
               "mean_predictor_mse": baseline, "branches_taken": sorted(branches),
               "reloaded_matches": bool(np.allclose(reloaded, test_pred, rtol=0, atol=1e-6)),
               "blocks_in_saved_model": len(program.blocks)}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"test MSE {test_mse:.4f} (predicting the mean: {baseline:.4f}); branches taken "
          f"{summary['branches_taken']}; model reloaded from {prefix}.pdmodel: "
          f"{'same predictions' if summary['reloaded_matches'] else 'DIFFERENT predictions'}")
    return summary


if __name__ == "__main__":
    main()
