#!/usr/bin/env python3
"""Summarize `gcdbg run --json` output: per graph, fallback nodes, timing, every MISMATCH, the
values nearest their bound (rmse / bound and worst / worst bound), values whose reference or
baseline is not the plain one, and the largest baseline / PyTorch ratios (how lax the bound is)."""
import json
import sys


def bound(v):
    return v["multiplier"] * v["baseline_rmse"] + v["floor"]


def main(path, top=5):
    d = json.load(open(path))
    print("trace", d.get("trace"), "ok", d.get("ok"), d.get("error", ""))
    for g in d.get("graphs", []):
        t = g.get("timing", {})
        print("graph", g["name"], "fallback", g.get("fallback_nodes"), "compiled_ms %.1f pytorch_ms %.1f eager_ms %.1f" % (
            t.get("compiled_ms", 0), t.get("producer_eager_ms", 0) or 0, t.get("eager_ms", 0)))
        rows = []
        for kind in ("outputs", "grads", "buffers"):
            for e in g.get(kind) or []:
                name = e.get("name", e.get("index"))
                for side in ("vs_expected", "vs_eager"):
                    v = e.get(side)
                    if not v or "rmse" not in v:
                        if v and not v.get("match", True):
                            print("  MISMATCH", kind, name, side, v)
                        continue
                    b = bound(v)
                    r = v["rmse"] / b if b else 0
                    rc = v.get("reference_check") or {}
                    lax = v["baseline_rmse"] / rc["rmse"] if rc.get("rmse") else float("nan")
                    rows.append((r, kind, name, side, v["match"], v["rmse"], b, v["baseline_rmse"], rc.get("rmse"), lax,
                                 v.get("reference"), v.get("baseline")))
                    if not v["match"]:
                        print("  MISMATCH %s %s %s rmse %.3g bound %.3g (= %g x %.3g + %.3g) worst %.3g base_worst %.3g ref=%s base=%s" % (
                            kind, name, side, v["rmse"], b, v["multiplier"], v["baseline_rmse"], v["floor"],
                            v.get("worst_err", 0), v.get("baseline_worst_err", 0), v.get("reference"), v.get("baseline")))
        rows.sort(key=lambda x: -x[0])
        print("  nearest the bound:")
        for r in rows[:top]:
            print("    %.3f %s %s %s match=%s rmse %.3g bound %.3g baseline %.3g pytorch %s" % (
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]))
        odd = [r for r in rows if r[10] not in (None, "gcdbg eager float64")]
        for r in odd[:10]:
            print("    reference: %s %s %s: %s" % (r[1], r[2], r[3], r[10]))
        lx = sorted([r for r in rows if r[3] == "vs_expected" and r[8]], key=lambda x: -x[9])
        print("  laxest baseline/pytorch:", ", ".join("%s %.1f" % (r[2], r[9]) for r in lx[:4]))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5)
