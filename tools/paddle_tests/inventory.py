"""API inventory: every ``paddle.*`` name the test sources reference, resolved on both
runtimes. Import order hides gaps at run time (one missing module stops a whole file); this
lists all of them at once."""
from __future__ import annotations

import ast
import json
import subprocess
import tempfile
from pathlib import Path

from staging import discover


def _paddle_chains(source: str) -> list[tuple[str, str]]:
    """Dotted ``paddle.*`` names used in a module, with the enclosing Class::function."""
    tree = ast.parse(source)
    alias: dict[str, str] = {}
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "paddle" or a.name.startswith("paddle."):
                    if a.asname:
                        alias[a.asname] = a.name
                    else:
                        alias["paddle"] = "paddle"
                        found.append((a.name, "<import>"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and (
                node.module == "paddle" or node.module.startswith("paddle.")):
            for a in node.names:
                full = f"{node.module}.{a.name}"
                alias[a.asname or a.name] = full
                found.append((full, "<import>"))

    def where(stack):
        names = [n.name for n in stack if isinstance(n, (ast.ClassDef, ast.FunctionDef))]
        return "::".join(names) or "<module>"

    def visit(node, stack, parent_is_attr=False):
        if isinstance(node, ast.Attribute) and not parent_is_attr:
            parts, cur = [], node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id in alias:
                found.append((".".join([alias[cur.id]] + parts[::-1]), where(stack)))
        for child in ast.iter_child_nodes(node):
            inner = stack + [node] if isinstance(node, (ast.ClassDef, ast.FunctionDef)) else stack
            visit(child, inner, isinstance(node, ast.Attribute))

    visit(tree, [])
    return found


RESOLVER = r"""
import importlib, json, sys
root = sys.argv[1]
fluid_compat = sys.argv[2] == "1"
names = json.load(sys.stdin)
out = {}
for name in names:
    parts = name.split(".")
    parts[0] = root
    if fluid_compat and len(parts) > 1 and parts[1] == "fluid":
        parts[1] = "base"
    obj, ok_upto = None, 0
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
            ok_upto = i
            break
        except Exception:
            continue
    missing = None
    for j in range(ok_upto, len(parts)):
        try:
            obj = getattr(obj, parts[j])
        except Exception:
            missing = j
            break
    if missing is None and ok_upto == 0:
        missing = 0
    out[name] = None if missing is None else ".".join(["paddle"] + name.split(".")[1:missing + 1])
print(json.dumps(out))
"""


def _resolve(python: str, root: str, names: list[str], fluid_compat: bool) -> dict:
    proc = subprocess.run([python, "-c", RESOLVER, root, "1" if fluid_compat else "0"],
                          input=json.dumps(names), capture_output=True, text=True,
                          timeout=900, cwd=tempfile.gettempdir())
    if proc.returncode != 0:
        raise SystemExit(f"resolver failed under {python}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cmd_inventory(args) -> int:
    src = Path(args.src).resolve()
    ref_py, cand_py = args.inventory
    uses: dict[str, list[str]] = {}
    for rel in discover(src) + [f"_helpers/{p.name}" for p in sorted((src / "_helpers").glob("*.py"))]:
        for name, where in _paddle_chains((src / rel).read_text()):
            uses.setdefault(name, []).append(f"{rel}::{where}")
    names = sorted(uses)
    ref = _resolve(ref_py, "paddle", names, not has_fluid(ref_py))
    cand = _resolve(cand_py, "pyfluid", names, False)
    gaps: dict[str, dict] = {}
    for name in names:
        if ref[name] is not None:  # not in the reference either: not a pyfluid gap
            continue
        first_missing = cand[name]
        if first_missing is None:
            continue
        g = gaps.setdefault(first_missing, {"names": set(), "uses": []})
        g["names"].add(name)
        g["uses"] += uses[name]
    ranked = sorted(gaps.items(), key=lambda kv: (-len({u.split("::")[0] for u in kv[1]["uses"]}),
                                                   -len(kv[1]["uses"]), kv[0]))
    print(f"{len(names)} distinct paddle.* names referenced; {sum(1 for n in names if ref[n] is None)} "
          f"exist in the reference; {len(ranked)} first-missing pyfluid paths:")
    for path, g in ranked:
        files = sorted({u.split("::")[0] for u in g["uses"]})
        full = sorted(g["names"])
        shown = ", ".join(full[:4]) + (f" (+{len(full) - 4} more)" if len(full) > 4 else "")
        print(f"- {path}  [{len(files)} files, {len(g['uses'])} uses]  names: {shown}")
        print(f"    e.g. {'; '.join(sorted(set(g['uses']))[:2])}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(
            {p: {"names": sorted(g["names"]), "uses": g["uses"]} for p, g in ranked}, indent=1) + "\n")
    return 0


def has_fluid(python: str) -> bool:
    """Whether that interpreter's Paddle still has ``paddle.fluid`` (before 2.6)."""
    proc = subprocess.run([python, "-c", "import paddle.fluid"], capture_output=True, text=True,
                          timeout=300, cwd=tempfile.gettempdir())
    return proc.returncode == 0
