"""Two recognisable generations of the same model, for checking that a save interrupted at any
instant leaves the old generation, the new one, or files that loading refuses: never a mix.

Generation g has weights filled with g and a program that multiplies its output by 10 g (same
variable names and shapes, so only the check that the files belong together can tell them
apart)."""
from __future__ import annotations

import os

import numpy as np

import pyfluid as paddle
from pyfluid.executor import Scope, global_scope, scope_guard
from pyfluid.io import ModelFileError

FEED = np.ones((1, 3), "float32")


def build(generation: int):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        hidden = paddle.static.nn.fc(x, 4, name="fc")
        out = paddle.scale(hidden, 10.0 * generation)
        loss = paddle.mean(out)
        paddle.optimizer.Adam(0.1).minimize(loss)
    return main, startup, x, out


def _fill(main, startup, generation: int) -> None:
    exe = paddle.static.Executor()
    exe.run(startup)
    for var in main.list_vars():
        if var.persistable and var.name not in ("feed", "fetch"):
            held = global_scope().find_var(var.name)
            value = np.asarray(held.get_tensor())
            held.get_tensor().set(np.full(value.shape, generation, value.dtype))


def save_inference(prefix: str, generation: int) -> None:
    with paddle.static.program_guard(paddle.static.Program()), scope_guard(Scope()):
        main, startup, x, out = build(generation)
        _fill(main, startup, generation)
        paddle.static.save_inference_model(prefix, [x], [out], paddle.static.Executor(),
                                           program=main)


def save_checkpoint(prefix: str, generation: int) -> None:
    with scope_guard(Scope()):
        main, startup, _, _ = build(generation)
        _fill(main, startup, generation)
        paddle.static.save(main, prefix)


def inference_generation(prefix: str) -> int | None:
    """The generation the inference files hold, None when loading refuses them; a mix of
    generations fails the calling test."""
    with scope_guard(Scope()):
        exe = paddle.static.Executor()
        try:
            program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        except ModelFileError:
            return None
        scale = next(op.attr("scale") for op in program.global_block().ops
                     if op.type == "scale" and op.attr("scale") != 1.0)
        weights = {float(np.asarray(global_scope().find_var(v.name).get_tensor()).flat[0])
                   for v in program.list_vars() if v.persistable
                   and v.name not in ("feed", "fetch")}
    assert weights == {scale / 10}, f"a mix: program of generation {scale / 10}, weights {weights}"
    return int(scale / 10)


def checkpoint_generation(prefix: str) -> int | None:
    """The generation of a checkpoint's .pdparams and .pdopt, None when refused."""
    try:
        state = paddle.static.load_program_state(prefix)
    except ModelFileError:
        return None
    values = {float(v.flat[0]) for k, v in state.items() if "beta" not in k}
    assert len(values) == 1, f"a mix of generations: {values}"
    return int(values.pop())


def temporaries(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(".tmp"))
