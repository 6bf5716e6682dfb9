#!/usr/bin/env python3
"""Summary of a Google Benchmark JSON written by bench/run.

usage: summarize.py BENCH_JSON [GLIBC_JSON]

Prints the anchor table (with the ratio to YuniKorn v1.2.0's own figures), the glibc malloc
comparison, the scaling curves (with the growth exponent of each), priority caches, latency
percentiles, memory per entity, config/scenario throughput, and last one machine-readable line
per anchor size. Medians are used where repetitions were run. Exit status 1 when a benchmark
reported an error (a failed verification included).
"""

import json
import math
import os
import re
import statistics
import sys

# YuniKorn v1.2.0 BenchmarkScheduling medians on a 2-core machine (issue 7), allocations/s.
YUNIKORN = {500: 12000, 1000: 9000, 2000: 6500, 5000: 3000}
TARGET_RATIO = 1000
# Exponent of cost ~ parameter^e above which a curve is flagged as not flat/logarithmic.
LINEAR_FLAG = 0.25


def load(path):
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def runs(doc):
    """run_name -> entry (the median aggregate when there are repetitions)."""
    grouped = {}
    errors = []
    for b in doc.get("benchmarks", []):
        if b.get("error_occurred"):
            errors.append((b.get("name"), b.get("error_message", "")))
            continue
        name = b.get("run_name", b["name"])
        g = grouped.setdefault(name, {"iterations": [], "median": None})
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                g["median"] = b
        else:
            g["iterations"].append(b)
    out = {}
    for name, g in grouped.items():
        if g["median"] is not None:
            out[name] = g["median"]
        elif len(g["iterations"]) == 1:
            out[name] = g["iterations"][0]
        elif g["iterations"]:
            merged = dict(g["iterations"][0])
            for key, value in merged.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    merged[key] = statistics.median(i[key] for i in g["iterations"] if key in i)
            out[name] = merged
    return out, errors


def fmt_rate(v):
    return f"{v / 1e6:.2f}M" if v >= 1e6 else f"{v / 1e3:.1f}k"


def fmt_ns(v):
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e4:
        return f"{v / 1e3:.1f} us"
    return f"{v:.0f} ns"


def fmt_bytes(v):
    if v >= 1 << 20:
        return f"{v / (1 << 20):.1f} MiB"
    return f"{v:.0f} B"


def section(title):
    print()
    print(f"== {title}")


def anchor_rows(rs):
    rows = []
    for name, b in rs.items():
        if name.startswith("BM_YunikornShape_Schedule/") and "allocs_per_s" in b:
            rows.append((int(b["nodes"]), int(b["pods"]), b))
    return sorted(rows, key=lambda r: (r[0], r[1]))


def print_anchor(rs, glibc):
    rows = anchor_rows(rs)
    if not rows:
        return rows
    section("yunikorn-shape (YuniKorn v1.2.0 BenchmarkScheduling), medians")
    print(f"{'nodes':>7} {'pods':>7} {'allocs/s':>10} {'ns/alloc':>9} {'cpu ns':>7} "
          f"{'YuniKorn':>9} {'ratio':>7}  target {TARGET_RATIO}x")
    for nodes, pods, b in rows:
        yk = YUNIKORN.get(nodes)
        ratio = b["allocs_per_s"] / yk if yk else None
        print(f"{nodes:>7} {pods:>7} {fmt_rate(b['allocs_per_s']):>10} "
              f"{b['ns_per_alloc']:>9.1f} {b.get('cpu_ns_per_alloc', float('nan')):>7.1f} "
              f"{(fmt_rate(yk) if yk else '-'):>9} "
              f"{(f'{ratio:.0f}x' if ratio else '-'):>7}  "
              f"{('met' if ratio and ratio >= TARGET_RATIO else ('NOT met' if ratio else ''))}")
    by_nodes = {n: b for n, _, b in rows}
    if 500 in by_nodes and 50000 in by_nodes:
        growth = by_nodes[50000]["ns_per_alloc"] / by_nodes[500]["ns_per_alloc"]
        cpu = (by_nodes[50000].get("cpu_ns_per_alloc", 0) /
               max(by_nodes[500].get("cpu_ns_per_alloc", 1), 1e-9))
        verdict = "met" if growth <= 1.5 else "NOT met"
        print(f"cost at 50,000 nodes / cost at 500 nodes: {growth:.2f} (cpu {cpu:.2f}); "
              f"target <= 1.5: {verdict}")
    if glibc:
        g_rows = {(int(b["nodes"]), int(b["pods"])): b for _, _, b in anchor_rows(glibc)}
        if g_rows:
            section("allocator: mimalloc vs glibc malloc (anchor, ns/alloc medians)")
            print(f"{'nodes':>7} {'mimalloc':>9} {'glibc':>9} {'glibc/mimalloc':>15}")
            for nodes, pods, b in rows:
                g = g_rows.get((nodes, pods))
                if g:
                    print(f"{nodes:>7} {b['ns_per_alloc']:>9.1f} {g['ns_per_alloc']:>9.1f} "
                          f"{g['ns_per_alloc'] / b['ns_per_alloc']:>15.2f}")
    return rows


def scaling_curves(rs):
    """(family, policy, parameter) -> [(value, depth, label, entry)] sorted by value, depth."""
    curves = {}
    for name, b in rs.items():
        m = re.match(r"BM_Scale_([A-Za-z]+)_([a-z]+)/([a-z]+):(\d+)(?:/depth:(\d+))?", name)
        if not m or "ns_per_alloc" not in b:
            continue
        family, policy, param, value, depth = m.groups()
        label = value + (f"/d{depth}" if depth else "")
        curves.setdefault((family, policy, param), []).append(
            (int(value), int(depth or 0), label, b))
    for points in curves.values():
        points.sort(key=lambda p: (p[0], p[1]))
    return curves


def print_scaling(rs):
    curves = scaling_curves(rs)
    if not curves:
        return
    section("scaling curves: ns per allocation (wall; * = time-boxed), exponent e of cost ~ x^e")
    flagged = []
    for (family, policy, param), points in sorted(curves.items()):
        points.sort(key=lambda p: (p[0], p[1]))
        cells = " ".join(f"{label}:{fmt_ns(b['ns_per_alloc'])}{'*' if b.get('timeboxed') else ''}"
                         for _, _, label, b in points)
        first, last = points[0], points[-1]
        # Same depth at both ends where possible (Leaves: the deepest variant is extra).
        same_depth = [p for p in points if p[0] == last[0]]
        last = min(same_depth, key=lambda p: p[1])
        e = None
        if last[0] > first[0]:
            e = (math.log(last[3]["cpu_ns_per_alloc"] / first[3]["cpu_ns_per_alloc"]) /
                 math.log(last[0] / first[0]))
        mark = ""
        if e is not None and e > LINEAR_FLAG:
            mark = "  <-- NOT FLAT"
            flagged.append(f"{family}_{policy}: {param} {first[0]} -> {last[0]}: "
                           f"{fmt_ns(first[3]['ns_per_alloc'])} -> "
                           f"{fmt_ns(last[3]['ns_per_alloc'])} per allocation (e={e:.2f})")
        e_text = f"e={e:.2f}" if e is not None else ""
        print(f"{family + '_' + policy:<22} {param:<7} {cells}  {e_text}{mark}")
    if flagged:
        print("not flat (cpu-time exponent > %.2f):" % LINEAR_FLAG)
        for f in flagged:
            print("  " + f)


def print_priority(rs):
    rows = [(n, b) for n, b in rs.items() if n.startswith("BM_PriorityCache_") and
            "ns_per_call" in b]
    if not rows:
        return
    section("priority caches: ns per call")
    for name, b in sorted(rows):
        short = re.sub(r"/(min_time|iterations):[^/]*|/manual_time", "", name)
        short = short.replace("BM_PriorityCache_", "")
        print(f"  {short:<40} {fmt_ns(b['ns_per_call']):>10}")


def print_latency(rs, glibc):
    rows = [(n, b) for n, b in rs.items()
            if n.startswith("BM_Latency_ScheduleOne/") and "p50_ns" in b]
    probes = [(n, b) for n, b in rs.items() if n.startswith("BM_Latency_Probe") and "p50_ns" in b]
    if not rows and not probes:
        return
    section("per-decision latency, Schedule(1) with churn (target p99 <= 1 us)")
    for name, b in sorted(probes):
        short = re.sub(r"/(min_time|iterations):[^/]*|/manual_time", "", name)
        print(f"  {short:<32} p50 {fmt_ns(b['p50_ns'])}  p99 {fmt_ns(b['p99_ns'])}"
              "  (Kernel::Probe of the next ask, same steady state)")
    g = {n: b for n, b in (runs(glibc)[0] if glibc else {}).items()} if glibc else {}
    for name, b in sorted(rows):
        short = re.sub(r"/(min_time|iterations):[^/]*|/manual_time", "", name)
        short = short.replace("BM_Latency_ScheduleOne/", "")
        print(f"  {short:<32} p50 {fmt_ns(b['p50_ns'])}  p99 {fmt_ns(b['p99_ns'])}  "
              f"p99.9 {fmt_ns(b['p999_ns'])}  max {fmt_ns(b['max_ns'])}  "
              f"(add p99 {fmt_ns(b['add_p99_ns'])}, release p99 {fmt_ns(b['release_p99_ns'])})"
              f"  p99 target: {'met' if b['p99_ns'] <= 1000 else 'NOT met'}")
        if name in g:
            gb = g[name]
            print(f"  {'  with glibc malloc':<32} p50 {fmt_ns(gb['p50_ns'])}  "
                  f"p99 {fmt_ns(gb['p99_ns'])}  p99.9 {fmt_ns(gb['p999_ns'])}")


def print_memory(rs):
    rows = {n: b for n, b in rs.items() if n.startswith("BM_Memory_")}
    if not rows:
        return
    section("memory (bytes the kernel keeps per entity; names = interned ids)")
    targets = {"node": 256, "ask": 128}
    hot_targets = {"node": 128, "ask": 96}
    for name, b in sorted(rows.items()):
        short = re.sub(r"/iterations:\d+", "", name).replace("BM_Memory_", "")
        for entity in ("node", "app", "ask"):
            key = f"bytes_per_{entity}"
            if key in b:
                excl = b[f"{key}_excl_names"]
                target = targets.get(entity)
                verdict = (f"  target <= {target} B: {'met' if excl <= target else 'NOT met'}"
                           if target else "")
                print(f"  {short:<28} {b[key]:>6.0f} B per {entity}, {excl:.0f} B without "
                      f"names{verdict}")
            hot_key = f"hot_bytes_per_{entity}"
            if hot_key in b:
                hot_target = hot_targets[entity]
                hot = b[hot_key]
                print(f"  {'':<28} {hot:>6.0f} B hot (what the walk reads), "
                      f"{b[key] - hot:.0f} B cold; target hot <= {hot_target} B: "
                      f"{'met' if hot <= hot_target else 'NOT met'}")
        if "bytes_per_allocation" in b:
            print(f"  {short:<28} {b['bytes_per_allocation']:>6.0f} B per live allocation")
        if "bytes_per_leaf_queue" in b:
            print(f"  {short:<28} {b['bytes_per_leaf_queue']:>6.0f} B per leaf queue "
                  f"(parents included)")
        if "peak_rss_bytes" in b:
            print(f"  {short:<28} peak RSS {fmt_bytes(b['peak_rss_bytes'])} "
                  f"(process baseline {fmt_bytes(b['baseline_rss_bytes'])})")


def print_adapters(rs):
    rows = {n: b for n, b in rs.items() if n.startswith(("BM_Config_", "BM_Scenario_"))}
    if not rows:
        return
    section("config parsing and scenario replay")
    for name, b in sorted(rows.items()):
        short = re.sub(r"/(min_time|iterations):[^/]*|/manual_time", "", name)
        extra = ""
        if "records_per_s" in b:
            extra = (f"{fmt_rate(b['records_per_s'])} records/s, "
                     f"{fmt_rate(b['allocs_per_s'])} allocations/s")
        elif "items_per_second" in b:
            unit = "queues" if name.startswith("BM_Config_") else "items"
            extra = f"{fmt_rate(b['items_per_second'])} {unit}/s"
        time_unit = b.get("time_unit", "ns")
        print(f"  {short:<42} {b['real_time']:.1f} {time_unit}/iteration  {extra}")


def print_preemption(rs):
    rows = {n: b for n, b in rs.items() if n.startswith("BM_Preemption_") and "p50_ns" in b}
    if not rows:
        return
    section("preemption (5,000 full nodes, 100,000 allocations; one Schedule call)")
    for name, b in sorted(rows.items()):
        short = re.sub(r"/(min_time|iterations):[^/]*|/manual_time", "", name)
        short = short.replace("BM_Preemption_", "")
        extra = ""
        if "victims_per_preemption" in b:
            extra = f"  {b['victims_per_preemption']:.2f} victims per preemption"
        print(f"  {short:<28} p50 {b['p50_ns'] / 1000:8.2f} us  p99 {b['p99_ns'] / 1000:8.2f} us"
              f"{extra}")


def main():
    doc = load(sys.argv[1])
    if doc is None:
        print(f"summarize: no results in {sys.argv[1]}", file=sys.stderr)
        return 2
    glibc = load(sys.argv[2]) if len(sys.argv) > 2 else None
    rs, errors = runs(doc)
    ctx = doc.get("context", {})
    print(f"== summary ({ctx.get('allocator', '?')}; verification: "
          f"{ctx.get('verification', '?')}; host load {ctx.get('load_avg', '?')})")
    if errors:
        section("ERRORS")
        for name, message in errors:
            print(f"  {name}: {message}")
    glibc_rs = runs(glibc)[0] if glibc else None
    rows = print_anchor(rs, glibc_rs)
    print_scaling(rs)
    print_priority(rs)
    print_latency(rs, glibc)
    print_memory(rs)
    print_preemption(rs)
    print_adapters(rs)
    if rows:
        print()
        for nodes, pods, b in rows:
            print(f"yunikorn-shape nodes={nodes} pods={pods} "
                  f"allocs_per_s={b['allocs_per_s']:.0f} ns_per_alloc={b['ns_per_alloc']:.1f}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
