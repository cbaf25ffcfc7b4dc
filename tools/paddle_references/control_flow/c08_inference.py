"""save_inference_model / load_inference_model / clone(for_test) with control flow (Paddle 2.6.2)."""
import os, shutil
import numpy as np
import paddle
from paddle.utils import unique_name
from _cfdump import Recorder, summary

paddle.enable_static()
rec = Recorder("c08_inference")
exe = paddle.static.Executor(paddle.CPUPlace())
OUT = rec.dir


def blocks_brief(prog):
    lines = []
    for b in prog.blocks:
        ops = []
        for op in b.ops:
            s = op.type
            if op.has_attr("sub_block"):
                s += f"(sub_block={op.desc._block_attr_id('sub_block')}"
                if op.has_attr("is_test"):
                    s += f", is_test={op.attr('is_test')}"
                s += ")"
            ops.append(s)
        lines.append(f"  block {b.idx} parent={b.parent_idx} fwd={b.desc.get_forward_block_idx()} vars={len(b.vars)} ops={ops}")
    return "\n".join(lines)


def build(with_backward=False, unused_cond=False):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 2], "float32")
        w = paddle.static.create_parameter([2, 2], "float32", name="w",
                                           default_initializer=paddle.nn.initializer.Assign(np.array([[0.5, -0.2], [0.3, 0.8]], "float32")))
        if unused_cond:
            _ = paddle.static.nn.cond(paddle.sum(x) > 100.0, lambda: x * 100.0, lambda: x * -100.0)
        h = paddle.matmul(x, w)
        h = paddle.static.nn.cond(paddle.mean(h) > 0, lambda: paddle.nn.functional.relu(h), lambda: h * 0.5)
        i = paddle.zeros([1], "int64")
        n = paddle.full([1], 3, "int64")
        i, h = paddle.static.nn.while_loop(lambda i, h: i < n, lambda i, h: [i + 1, paddle.tanh(paddle.matmul(h, w))], [i, h])
        out = paddle.mean(h, axis=1)
        if with_backward:
            loss = paddle.mean(out)
            paddle.optimizer.SGD(0.1).minimize(loss)
    return main, startup, x, out


feed = {"x": np.array([[1.0, 2.0], [0.5, -1.0]], "float32")}
for tag, kw in [("A_plain", {}), ("B_unused_cond", {"unused_cond": True}), ("C_trained", {"with_backward": True})]:
    main, startup, x, out = build(**kw)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        ref = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[out])[0]
        rec.log(f"== {tag}: source program")
        rec.log(blocks_brief(main))
        rec.program(main, tag + ".source", pdmodel=False)
        test = main.clone(for_test=True)
        rec.log(f"-- {tag}: clone(for_test=True)")
        rec.log(blocks_brief(test))
        rec.program(test, tag + ".clone_for_test", pdmodel=False)
        prefix = os.path.join(OUT, tag, "model")
        paddle.static.save_inference_model(prefix, [x], [out], exe, program=main)
        rec.log(f"-- {tag}: saved {sorted(os.listdir(os.path.join(OUT, tag)))}")
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        rec.log(f"-- {tag}: loaded inference program; feeds={feeds} fetches={[f.name for f in fetches]}")
        rec.log(blocks_brief(prog))
        rec.program(prog, tag + ".loaded", pdmodel=False)
        got = exe.run(prog, feed=feed, fetch_list=fetches)[0]
        rec.log(f"   outputs source={ref.tolist()} loaded={got.tolist()}")
        np.savez(os.path.join(OUT, tag + ".io.npz"), x=feed["x"], out=got)
        # normalize_program alone (what save_inference_model serializes)
        norm = paddle.static.normalize_program(main, [x], [out])
        rec.log(f"-- {tag}: normalize_program")
        rec.log(blocks_brief(norm))
