"""Comparing two result files: per file, the tests passing on the reference (excluded ones
dropped) and how many of those pass on the candidate; the failure causes ranked by how many
reference-passing tests each loses (the first error line, numbers and paths masked)."""
from __future__ import annotations

import json
import re
from pathlib import Path


def normalize_cause(line: str) -> str:
    s = line.strip()
    s = re.sub(r"0x[0-9a-fA-F]+", "0x…", s)
    s = re.sub(r"\((/[^)\s]*)\)", "(<path>)", s)
    s = re.sub(r"(/tmp|/var/folders)/\S+", "<tmp>", s)
    s = re.sub(r"(?<![\w'\"])-?\d+(\.\d+)?(e-?\d+)?(?![\w'\"])", "N", s)
    s = re.sub(r"\[[N, .\-\n]*\]", "[…]", s)
    s = re.sub(r"\s+", " ", s)
    return s[:300]


def compare(ref: dict, cand: dict):
    rows, causes = [], {}
    total_ref = total_ok = 0
    for rel in sorted(ref["results"]):
        excluded = ref.get("excluded", {}).get(rel, {}) | cand.get("excluded", {}).get(rel, {})
        ref_pass = [t for t, o in ref["results"][rel].items() if o == "passed" and t not in excluded]
        cres = cand["results"].get(rel, {})
        cfile = cand["files"].get(rel, {"status": "missing", "message": "file not run"})
        ok = [t for t in ref_pass if cres.get(t) == "passed"]
        for t in ref_pass:
            if cres.get(t) == "passed":
                continue
            if t in cres:
                line = cand["errors"].get(rel, {}).get(t) or f"{cres[t]} (no message)"
                if cres[t] == "skipped":
                    line = "skipped on candidate: " + line
            else:
                line = cfile.get("message") or f"not run ({cfile.get('status')})"
            key = normalize_cause(line)
            entry = causes.setdefault(key, {"count": 0, "examples": [], "files": set(), "raw": line})
            entry["count"] += 1
            entry["files"].add(rel)
            if len(entry["examples"]) < 2:
                entry["examples"].append(f"{rel}::{t}")
        n_ref, n_ok = len(ref_pass), len(ok)
        total_ref += n_ref
        total_ok += n_ok
        rows.append({"file": rel, "ref_total": len(ref["results"][rel]), "excluded": len(excluded),
                     "ref_pass": n_ref, "cand_pass": n_ok,
                     "rate": (n_ok / n_ref) if n_ref else None,
                     "cand_status": cfile.get("status")})
    ranked = sorted(causes.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
    return rows, total_ref, total_ok, ranked


def cmd_compare(args) -> int:
    ref = json.loads(Path(args.compare[0]).read_text())
    cand = json.loads(Path(args.compare[1]).read_text())
    rows, total_ref, total_ok, ranked = compare(ref, cand)
    md = args.markdown
    rate = f"{100.0 * total_ok / total_ref:.1f}%" if total_ref else "n/a"
    rname = ref["meta"].get("runtime_version", "reference")
    cname = cand["meta"].get("runtime_version", "candidate")
    if md:
        print(f"| file | tests collected (ref) | excluded | pass on ref ({rname}) | of those pass on candidate ({cname}) | rate | candidate file status |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    else:
        print(f"{'file':52} {'coll':>5} {'excl':>5} {'ref':>5} {'cand':>5} {'rate':>7}  status")
    for r in rows:
        rr = f"{100.0 * r['rate']:.1f}%" if r["rate"] is not None else "n/a"
        if md:
            print(f"| {r['file']} | {r['ref_total']} | {r['excluded']} | {r['ref_pass']} | {r['cand_pass']} | {rr} | {r['cand_status']} |")
        else:
            print(f"{r['file']:52} {r['ref_total']:5} {r['excluded']:5} {r['ref_pass']:5} {r['cand_pass']:5} {rr:>7}  {r['cand_status']}")
    if md:
        print(f"| **total** | | | **{total_ref}** | **{total_ok}** | **{rate}** | |")
    else:
        print(f"{'TOTAL':52} {'':5} {'':5} {total_ref:5} {total_ok:5} {rate:>7}")
    print()
    print(f"Overall: {total_ok}/{total_ref} = {rate} of the tests passing on the reference pass on the candidate.")
    print()
    print("Failure causes (normalized first error line), by number of reference-passing tests lost:")
    limit = args.top if args.top else len(ranked)
    for i, (key, e) in enumerate(ranked[:limit], 1):
        ex = "; ".join(e["examples"])
        if md:
            print(f"{i}. **{e['count']}** — `{e['raw'][:240]}` — e.g. {ex}")
        else:
            print(f"{i:3}. [{e['count']:3}] {e['raw'][:240]}\n        e.g. {ex}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({
            "total_ref_pass": total_ref, "total_cand_pass": total_ok, "rows": rows,
            "causes": [{"cause": k, "count": e["count"], "raw": e["raw"], "examples": e["examples"],
                        "files": sorted(e["files"])} for k, e in ranked]}, indent=1) + "\n")
    return 0
