"""The ``pyfluid`` command: look at, run, draw and convert inference models (``.pdmodel`` or
Paddle 3's PIR ``.json``, + ``.pdiparams``, written by Paddle or pyfluid).

    pyfluid show MODEL                                  print the program
    pyfluid run MODEL --input NAME=file.npy [-o out.npz] run it, print (and save) the outputs
    pyfluid dot MODEL -o graph.svg                      draw it with Graphviz (-o x.dot: source)
    pyfluid convert MODEL OUT.json | OUT.pdmodel        rewrite it in the other format
    pyfluid onnx MODEL -o model.onnx [--opset 17]       convert it to ONNX (needs `onnx`)

Errors are printed as one line (``pyfluid: error: ...``, exit status 1); add ``--traceback``
to see where they came from.

MODEL is the path prefix given to ``save_inference_model`` or the ``.pdmodel`` / ``.json``
file itself.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import traceback
from typing import Sequence

import numpy as np

from .executor import CPUPlace, Executor, Scope, scope_guard
from .framework.program import Program
from .io import ModelFileError, load_inference_model
from .io.inference import read_program_file
from .io.model_format import model_file
from .io.pir import LEGACY_SUFFIX, PIR_SUFFIX
from .io.pir.convert import convert_model

_GRAPHVIZ_MISSING = ("Graphviz is not installed: install its `dot` program (apt-get install "
                     "graphviz, brew install graphviz or conda install graphviz) to render "
                     "{fmt}, or write the DOT source instead with -o {stem}.dot")


class CliError(Exception):
    """A problem to report in one line, without a traceback."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; any error is one line on stderr and exit status 1 (``--traceback``
    prints the whole traceback instead)."""
    args = _parser().parse_args(argv)
    try:
        return args.command(args)
    except Exception as exc:           # the model and its inputs are the user's: report, exit 1
        if args.traceback:
            traceback.print_exc()
        print(f"pyfluid: error: {one_line(exc)}", file=sys.stderr)
        return 1


def one_line(exc: BaseException) -> str:
    """The error's message on one line, with its type when the message alone is not clear
    (a built-in exception such as MemoryError or RecursionError)."""
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    builtin = type(exc).__module__ == "builtins" and not isinstance(exc, OSError)
    return f"{type(exc).__name__}: {text}" if builtin or not text else text


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pyfluid", description=__doc__.split("\n\n")[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--traceback", action="store_true",
                        help="on an error, print the full traceback too")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    show = commands.add_parser("show", parents=[common], help="print the program of a model")
    show.add_argument("model", help="path prefix, .pdmodel or .json file")
    show.set_defaults(command=_show)
    run = commands.add_parser("run", parents=[common],
                              help="run a model on inputs from .npy files")
    run.add_argument("model", help="path prefix, .pdmodel or .json file")
    run.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE.npy",
                     help="a feed target and the .npy file holding its value (repeatable)")
    run.add_argument("--output", "-o", metavar="OUT.npz",
                     help="also save the outputs (keys y0, y1, ... in fetch order)")
    run.set_defaults(command=_run)
    dot = commands.add_parser("dot", parents=[common],
                              help="draw the program's graph with Graphviz")
    dot.add_argument("model", help="path prefix, .pdmodel or .json file")
    dot.add_argument("--output", "-o", required=True, metavar="OUT.svg",
                     help="output file; its extension picks the format (.dot writes the source)")
    dot.set_defaults(command=_dot)
    convert = commands.add_parser("convert", parents=[common],
                                  help="rewrite a model as PIR .json (Paddle 3) or .pdmodel "
                                  "(Paddle 2.x)")
    convert.add_argument("model", help="path prefix, .pdmodel or .json file")
    convert.add_argument("output", help="OUT.json or OUT.pdmodel (the suffix picks the format); "
                         "OUT.pdiparams is written beside it")
    convert.set_defaults(command=_convert)
    to_onnx = commands.add_parser("onnx", parents=[common],
                                  help="convert the model to an ONNX file")
    to_onnx.add_argument("model", help="path prefix, .pdmodel or .json file")
    to_onnx.add_argument("--output", "-o", required=True, metavar="OUT.onnx", help="ONNX file")
    to_onnx.add_argument("--opset", type=int, default=17, help="ONNX opset (default: 17)")
    to_onnx.set_defaults(command=_onnx)
    return parser


def _prefix(model: str) -> str:
    for suffix in (LEGACY_SUFFIX, PIR_SUFFIX):
        if model.endswith(suffix):
            return model[:-len(suffix)]
    return model


def _model_path(model: str) -> str:
    """The model file: the one named, or the one found for a prefix."""
    if model.endswith((LEGACY_SUFFIX, PIR_SUFFIX)):
        return model
    return model_file(model)


def _read_program(model: str) -> Program:
    return read_program_file(_model_path(model))


def _targets(program: Program) -> tuple[list[str], list[str]]:
    """Feed and fetch target names in ``col`` order."""
    ops = program.global_block().ops

    def by_col(kind: str) -> list[str]:
        chosen = sorted((op for op in ops if op.type == kind), key=lambda op: op.attr("col") or 0)
        return [(op.output("Out") if kind == "feed" else op.input("X"))[0] for op in chosen]
    return by_col("feed"), by_col("fetch")


# -- show ---------------------------------------------------------------------------------------
def _show(args: argparse.Namespace) -> int:
    program = _read_program(args.model)
    block = program.global_block()
    feeds, fetches = _targets(program)
    weights = [v for v in block.vars.values()
               if v.persistable and v.name not in ("feed", "fetch")]
    size = sum(int(np.prod(v.shape)) for v in weights)
    print(f"model: {_model_path(args.model)}")
    print(f"inputs: {', '.join(_describe(block.vars[n]) for n in feeds) or '(none)'}")
    print(f"outputs: {', '.join(_describe(block.vars[n]) for n in fetches) or '(none)'}")
    print(f"weights: {len(weights)} variables, {size} values")
    print()
    print(program, end="")
    return 0


def _describe(var) -> str:
    return f"{var.name} {var.dtype.name_str}{list(var.shape)}"


# -- run ----------------------------------------------------------------------------------------
def _run(args: argparse.Namespace) -> int:
    feeds = {}
    for item in args.input:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise CliError(f"--input expects NAME=FILE.npy, got '{item}'")
        try:
            feeds[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise CliError(f"cannot read input '{name}' from '{path}': {exc}") from None
    exe = Executor(CPUPlace())
    with scope_guard(Scope()):
        program, feed_names, fetch_targets = load_inference_model(_prefix(args.model), exe)
        missing = [n for n in feed_names if n not in feeds]
        unknown = [n for n in feeds if n not in feed_names]
        if missing or unknown:
            raise CliError(f"the model takes inputs {feed_names}; missing {missing}, "
                           f"unknown {unknown}. Pass --input NAME=FILE.npy for each input.")
        with np.errstate(all="ignore"):    # NaN/inf show in the outputs, said once below
            outputs = exe.run(program, feed=feeds, fetch_list=fetch_targets)
    for i, (var, value) in enumerate(zip(fetch_targets, outputs)):
        print(f"y{i} = {var.name}: {value.dtype}{list(value.shape)}")
        print(np.array2string(value, threshold=20, edgeitems=3))
        if value.dtype.kind in "fc" and not np.all(np.isfinite(value)):
            print(f"note: y{i} holds NaN or infinite values")
    if args.output:
        np.savez(args.output, **{f"y{i}": v for i, v in enumerate(outputs)})
        print(f"saved {len(outputs)} output(s) to {args.output}")
    return 0


# -- convert ------------------------------------------------------------------------------------
def _convert(args: argparse.Namespace) -> int:
    if not args.output.endswith((LEGACY_SUFFIX, PIR_SUFFIX)):
        raise CliError(f"the output must end in {PIR_SUFFIX} (Paddle 3 PIR) or {LEGACY_SUFFIX} "
                       f"(Paddle 2.x), got '{args.output}'")
    written = convert_model(_prefix(args.model), args.output)
    print("wrote " + ", ".join(written))
    return 0


# -- onnx ---------------------------------------------------------------------------------------
def _onnx(args: argparse.Namespace) -> int:
    from .onnx import OnnxExportError, export_onnx
    scope = Scope()
    with scope_guard(scope):
        program, feed_names, fetch_targets = load_inference_model(_prefix(args.model),
                                                                  Executor(CPUPlace()))
    try:
        path = export_onnx(program, feed_names, fetch_targets, args.output, scope=scope,
                           opset_version=args.opset)
    except (OnnxExportError, ImportError) as exc:
        raise CliError(str(exc)) from None
    print(f"wrote {path} (opset {args.opset}; inputs {', '.join(feed_names)}; outputs "
          f"{', '.join(v.name for v in fetch_targets)})")
    return 0


# -- dot ----------------------------------------------------------------------------------------
def program_to_dot(program: Program) -> str:
    """Graphviz DOT source of the global block: variables as ellipses (weights shaded, inputs
    and outputs coloured), ops as boxes, edges along the data flow."""
    block = program.global_block()
    feeds, fetches = _targets(program)
    lines = ["digraph program {", "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=10];']
    shown = set()

    def var_node(name: str) -> str:
        node = _quote("var:" + name)
        if name not in shown:
            shown.add(name)
            var = block._find_var_recursive(name)
            label = _describe(var) if var is not None and var.has_tensor_desc else name
            style = ('style=filled, fillcolor="#dddddd"' if var is not None and var.persistable
                     else 'style=filled, fillcolor="#cce5ff"' if name in feeds
                     else 'style=filled, fillcolor="#d4edda"' if name in fetches else "")
            lines.append(f"  {node} [shape=ellipse, label={_quote(label)}{', ' if style else ''}"
                         f"{style}];")
        return node

    for index, op in enumerate(block.ops):
        if op.type in ("feed", "fetch"):
            continue
        node = _quote(f"op:{index}")
        lines.append(f"  {node} [shape=box, style=\"rounded,bold\", label={_quote(op.type)}];")
        for slot, names in op.inputs.items():
            for name in names:
                lines.append(f"  {var_node(name)} -> {node} [label={_quote(slot)}];")
        for slot, names in op.outputs.items():
            for name in names:
                lines.append(f"  {node} -> {var_node(name)} [label={_quote(slot)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot(args: argparse.Namespace) -> int:
    source = program_to_dot(_read_program(args.model))
    stem, ext = os.path.splitext(args.output)
    fmt = ext.lstrip(".").lower() or "svg"
    if fmt in ("dot", "gv"):
        with open(args.output, "w") as f:
            f.write(source)
    else:
        _render(source, fmt, args.output, stem)
    print(f"wrote {args.output}")
    return 0


def _render(source: str, fmt: str, output: str, stem: str) -> None:
    missing = _GRAPHVIZ_MISSING.format(fmt=fmt, stem=stem)
    dot = shutil.which("dot")
    if dot is not None:
        done = subprocess.run([dot, f"-T{fmt}", "-o", output], input=source.encode(),
                              capture_output=True)
        if done.returncode != 0:
            raise CliError(f"dot failed: {done.stderr.decode(errors='replace').strip()}")
        return
    try:
        import graphviz  # optional dependency
    except ImportError:
        raise CliError(missing) from None
    try:
        data = graphviz.Source(source).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise CliError(missing) from None
    with open(output, "wb") as f:
        f.write(data)
