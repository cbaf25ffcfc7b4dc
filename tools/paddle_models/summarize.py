"""Summarise the corpora: sizes, fixture candidates, pyfluid results, missing ops."""
import json, os, sys, collections
root = sys.argv[1] if len(sys.argv) > 1 else "."
LIMIT = 300 * 1024
for d in ("zoo26", "cf26", "pir33"):
    m = json.load(open(os.path.join(root, d, "manifest.json")))["models"]
    tot = sum(os.path.getsize(os.path.join(root, d, f)) for f in os.listdir(os.path.join(root, d)))
    small = sorted((e["total_bytes"], n) for n, e in m.items() if e["total_bytes"] < LIMIT)
    print("## %s: %d models, %.1f MB on disk; %d under 300 KB (%.1f KB together)" % (
        d, len(m), tot / 1e6, len(small), sum(s for s, _ in small) / 1024))
    print("   small:", ", ".join("%s (%.0f KB)" % (n, s / 1024) for s, n in small))
    print("   not small:", ", ".join(sorted(n for n, e in m.items() if e["total_bytes"] >= LIMIT)))
for d in ("zoo26", "cf26"):
    p = os.path.join(root, d, "pyfluid_check.json")
    if not os.path.exists(p):
        continue
    r = json.load(open(p))["models"]
    m = json.load(open(os.path.join(root, d, "manifest.json")))["models"]
    print("\n## pyfluid on %s" % d)
    print("| model | large | loads | runs | max abs | max rel | note |")
    print("|---|---|---|---|---|---|---|")
    for n in sorted(r):
        x = r[n]
        note = "" if x.get("runs") else x.get("error", "").splitlines()[0][:90]
        if x.get("missing_ops"):
            note = "missing: " + ", ".join(x["missing_ops"])
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            n, "L" if m[n].get("large") else "", "yes" if x.get("loads") else "no",
            "yes" if x.get("runs") else "no",
            "%.2g" % x["max_abs"] if x.get("runs") else "", "%.2g" % x["max_rel"] if x.get("runs") else "", note))
    miss = collections.defaultdict(list)
    for n, x in r.items():
        for o in x.get("missing_ops", []):
            miss[o].append(n)
    print("\n## op types missing from pyfluid's registry (%s): %d" % (d, len(miss)))
    for o in sorted(miss):
        print("- %s: %s" % (o, ", ".join(sorted(miss[o]))))
