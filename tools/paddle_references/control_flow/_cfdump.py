"""Shared helpers for the control-flow recording scripts (run with Paddle 2.6.2's python).

Each script calls `Recorder(name)`; files land in recorded/<name>/ :
  <tag>.program.txt   str(program)  (Paddle's own printer)
  <tag>.prototxt      text_format of the ProgramDesc, op_callstack values replaced by their count
  <tag>.pdmodel       program.desc.serialize_to_string() bytes (untouched, callstacks included)
  <tag>.summary.txt   compact per-block view: block idx/parent/forward, vars, ops with slots and
                      all attrs except op_callstack (with AttrType names), op_role in hex
  log.txt             everything the script printed via rec.log()
  *.npz               numeric inputs/outputs
"""
import os, sys, json
import numpy as np
import paddle
from paddle.base import core
from paddle.base.proto import framework_pb2
from google.protobuf import text_format

HERE = os.path.dirname(os.path.abspath(__file__))
VT = core.VarDesc.VarType


def _vt_name(t):
    return str(t).split('.')[-1]


def var_line(v):
    d = v.desc
    t = d.type()
    s = f"{v.name} : {_vt_name(t)}"
    if t in (VT.LOD_TENSOR, VT.LOD_TENSOR_ARRAY, VT.SELECTED_ROWS):
        s += f" dtype={_vt_name(d.dtype())} shape={list(d.shape())}"
        if t != VT.SELECTED_ROWS:
            s += f" lod_level={d.lod_level()}"
    flags = []
    if d.persistable():
        flags.append("persistable")
    if v.stop_gradient:
        flags.append("stop_gradient")
    if isinstance(v, paddle.base.framework.Parameter):
        flags.append("PARAM")
    if d.need_check_feed():
        flags.append("need_check_feed")
    if flags:
        s += " [" + ",".join(flags) + "]"
    return s


def attr_repr(op, n):
    d = op.desc
    at = d.attr_type(n)
    if at == core.AttrType.BLOCK:
        return f"block[{d._block_attr_id(n)}]"
    if at == core.AttrType.BLOCKS:
        return f"blocks{list(d._blocks_attr_ids(n))}"
    v = op.attr(n)
    if n == "op_role":
        return hex(v)
    return repr(v)


def op_lines(op):
    d = op.desc
    ins = {k: d.input(k) for k in d.input_names()}
    outs = {k: d.output(k) for k in d.output_names()}
    attrs = []
    for n in sorted(d.attr_names()):
        if n == "op_callstack":
            continue
        attrs.append(f"{n}:{_vt_name(d.attr_type(n))}={attr_repr(op, n)}")
    return f"{op.type}\n      in  {ins}\n      out {outs}\n      attrs {', '.join(attrs)}"


ATTR_FIELD = {0: "i", 1: "f", 2: "s", 3: "ints", 4: "floats", 5: "strings", 6: "b", 7: "bools",
              8: "block_idx", 9: "l", 10: "blocks_idx", 11: "longs", 12: "float64s", 13: "var_name",
              14: "vars_name", 15: "float64"}
ATTR_TYPE_NAME = {v: k for k, v in framework_pb2.AttrType.items()}
VAR_TYPE_NAME = {v: k for k, v in framework_pb2.VarType.Type.items()}


def _attr_value(a):
    f = ATTR_FIELD.get(a.type)
    v = getattr(a, f)
    if a.type in (3, 4, 5, 7, 10, 11, 12, 14):
        v = list(v)
    if a.type == 8:
        return f"block[{v}]"
    if a.name == "op_role":
        return hex(v)
    return repr(v)


def summary(prog):
    """Compact view built from the serialized ProgramDesc (so order = wire order), plus the
    Python-side stop_gradient flag."""
    pd = framework_pb2.ProgramDesc.FromString(prog.desc.serialize_to_string())
    lines = []
    for bd, b in zip(pd.blocks, prog.blocks):
        lines.append(f"BLOCK {bd.idx} parent={bd.parent_idx} forward_block_idx={bd.forward_block_idx}"
                     f"  ({len(bd.vars)} vars, {len(bd.ops)} ops)")
        for vd in bd.vars:
            t = vd.type.type
            s = f"  var {vd.name} : {VAR_TYPE_NAME[t]}"
            td = None
            if t == 7:
                td = vd.type.lod_tensor
            elif t == 13:
                td = vd.type.tensor_array
            elif t == 8:
                td = vd.type.selected_rows
            if td is not None:
                tensor = td.tensor if t != 8 else td
                s += f" dtype={VAR_TYPE_NAME[tensor.data_type]} shape={list(tensor.dims)}"
                if t != 8:
                    s += f" lod_level={td.lod_level}"
            flags = []
            if vd.persistable: flags.append("persistable")
            if vd.HasField("is_parameter") and vd.is_parameter: flags.append("is_parameter")
            if vd.need_check_feed: flags.append("need_check_feed")
            if vd.HasField("stop_gradient"): flags.append(f"desc.stop_gradient={vd.stop_gradient}")
            pv = b.vars.get(vd.name)
            flags.append("py.stop_gradient=" + ("?" if pv is None else str(pv.stop_gradient)))
            lines.append(s + " [" + ",".join(flags) + "]")
        for i, od in enumerate(bd.ops):
            ins = {x.parameter: list(x.arguments) for x in od.inputs}
            outs = {x.parameter: list(x.arguments) for x in od.outputs}
            attrs = [f"{a.name}:{ATTR_TYPE_NAME[a.type]}={_attr_value(a)}" for a in od.attrs
                     if a.name != "op_callstack"]
            lines.append(f"  op[{i}] {od.type}\n      in  {ins}\n      out {outs}\n      attrs {', '.join(attrs)}")
    return "\n".join(lines) + "\n"


def prototxt(prog):
    pd = framework_pb2.ProgramDesc.FromString(prog.desc.serialize_to_string())
    for blk in pd.blocks:
        for op in blk.ops:
            for a in op.attrs:
                if a.name == "op_callstack":
                    n = len(a.strings)
                    del a.strings[:]
                    a.strings.append(f"<{n} callstack lines elided>")
    return text_format.MessageToString(pd)


class Recorder:
    def __init__(self, name):
        self.dir = os.path.join(HERE, name)
        os.makedirs(self.dir, exist_ok=True)
        self.logf = open(os.path.join(self.dir, "log.txt"), "w")

    def log(self, *a):
        s = " ".join(str(x) for x in a)
        print(s)
        self.logf.write(s + "\n")
        self.logf.flush()

    def program(self, prog, tag, pdmodel=True):
        p = os.path.join(self.dir, tag)
        with open(p + ".program.txt", "w") as f:
            f.write(str(prog))
        with open(p + ".summary.txt", "w") as f:
            f.write(summary(prog))
        with open(p + ".prototxt", "w") as f:
            f.write(prototxt(prog))
        if pdmodel:
            with open(p + ".pdmodel", "wb") as f:
                f.write(prog.desc.serialize_to_string())

    def npz(self, tag, **arrays):
        np.savez(os.path.join(self.dir, tag + ".npz"), **arrays)

    def error(self, label, fn):
        """Run fn, log the exception type and full message."""
        try:
            fn()
        except BaseException as e:  # noqa
            msg = str(e)
            self.log(f"ERROR[{label}] {type(e).__module__}.{type(e).__name__}: {msg!r}")
            return e
        self.log(f"ERROR[{label}] <no error>")
        return None


# ---------------------------------------------------------------------------------------------
# gradient harness
class GradCase:
    """Build a float64 program in fresh unique-name / program / scope, append backward,
    run it for several feeds, fetch loss + gradients, compare to central differences."""

    def __init__(self, rec, tag):
        self.rec, self.tag = rec, tag

    def run(self, build, feeds, params_init, method="append_backward", fd_check=True, extra_fetch=()):
        rec, tag = self.rec, self.tag
        main, startup = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        from paddle.utils import unique_name
        with unique_name.guard(), paddle.static.program_guard(main, startup):
            d = build()
            loss, params, inputs = d["loss"], d.get("params", []), d.get("inputs", [])
            if method == "append_backward":
                pg = paddle.static.append_backward(loss)
                rec.log(f"== {tag}: append_backward -> params_and_grads",
                        [(p.name, g.name if g is not None else None) for p, g in pg])
                grads = {}
                for p, g in pg:
                    grads[p.name] = g
                for x in inputs:
                    gname = x.name + "@GRAD"
                    if main.global_block().has_var(gname):
                        grads[x.name] = main.global_block().var(gname)
            else:
                wrt = params + inputs
                gs = paddle.static.gradients([loss], wrt)
                rec.log(f"== {tag}: gradients -> ", [(v.name, g.name if g is not None else None) for v, g in zip(wrt, gs)])
                grads = {v.name: g for v, g in zip(wrt, gs) if g is not None}
        rec.program(main, tag)
        rec.program(startup, tag + ".startup", pdmodel=False)
        exe = paddle.static.Executor(paddle.CPUPlace())
        names = sorted(grads)
        out = {}
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            for pname, val in params_init.items():
                scope.find_var(pname).get_tensor().set(np.asarray(val, "float64"), paddle.CPUPlace())
                out[f"param:{pname}"] = np.asarray(val, "float64")
            for k, feed in enumerate(feeds):
                fetch = [loss] + [grads[n] for n in names] + list(extra_fetch)
                res = exe.run(main, feed=feed, fetch_list=fetch)
                for fn, fv in feed.items():
                    out[f"feed{k}:{fn}"] = fv
                out[f"feed{k}:loss"] = res[0]
                rec.log(f"  feed{k}", {a: b.tolist() for a, b in feed.items()}, "loss", res[0].tolist())
                for n, r in zip(names, res[1:1 + len(names)]):
                    out[f"feed{k}:grad:{n}"] = r
                    rec.log(f"    d loss/d {n} ({grads[n].name}) =", np.round(r, 12).tolist())
                for v, r in zip(extra_fetch, res[1 + len(names):]):
                    out[f"feed{k}:fetch:{v.name}"] = r
                    rec.log(f"    fetch {v.name} =", np.round(r, 12).tolist())
                if fd_check:
                    worst = 0.0
                    for n, r in zip(names, res[1:1 + len(names)]):
                        is_param = n in params_init
                        base = (np.array(scope.find_var(n).get_tensor()) if is_param else feed[n]).astype("float64")
                        num = np.zeros_like(base)
                        eps = 1e-6
                        for idx in np.ndindex(base.shape):
                            vals = []
                            for sgn in (1, -1):
                                pert = base.copy()
                                pert[idx] += sgn * eps
                                f2 = dict(feed)
                                if is_param:
                                    scope.find_var(n).get_tensor().set(pert, paddle.CPUPlace())
                                else:
                                    f2[n] = pert
                                vals.append(float(exe.run(main, feed=f2, fetch_list=[loss])[0]))
                            if is_param:
                                scope.find_var(n).get_tensor().set(base, paddle.CPUPlace())
                            num[idx] = (vals[0] - vals[1]) / (2 * eps)
                        worst = max(worst, float(np.max(np.abs(num - r))) if r.size else 0.0)
                    rec.log(f"    finite-difference check: max |paddle - numeric| = {worst:.3e}")
        rec.npz(tag, **out)
        return main
