#!/usr/bin/python3
"""Pictures of the benchmarks (Debian python3-matplotlib).

usage: plot.py BENCH_JSON OUT_DIR [svg|png]  scaling, latency and yunikorn figures
       plot.py --latency-csv CSV OUT_FILE    a latency histogram (allocore run --latency-csv)

BENCH_JSON is the Google Benchmark JSON that bench/run writes (build-bench/bench.json); the
figures read it with the same parsing as summarize.py. SVG or PNG by the OUT_FILE's suffix.
"""

import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize  # noqa: E402


def scaling(rs, path):
    curves = summarize.scaling_curves(rs)
    if not curves:
        return False
    params = sorted({(family, param) for family, _, param in curves})
    cols = 3
    rows = (len(params) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, (family, param) in zip(axes.flat, params):
        for (f, policy, p), points in sorted(curves.items()):
            if (f, p) != (family, param):
                continue
            # One line per policy through the shallowest variant of each size (Leaves grows
            # deeper as it grows wider); deeper variants of the same size as crosses.
            cost = lambda b: b.get("cpu_ns_per_alloc", b["ns_per_alloc"])  # noqa: E731
            line = {}
            for v, d, _, b in points:
                if v not in line or d < line[v][0]:
                    line[v] = (d, b)
            xs = sorted(line)
            (drawn,) = ax.plot(xs, [cost(line[v][1]) for v in xs], marker="o", label=policy)
            extra = [(v, cost(b)) for v, d, _, b in points if d != line[v][0]]
            if extra:
                ax.plot([v for v, _ in extra], [c for _, c in extra], marker="x", linestyle="",
                        color=drawn.get_color())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{family} ({param})", fontsize=10)
        ax.set_xlabel(param)
        ax.set_ylabel("CPU ns per allocation")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(params):]:
        ax.set_visible(False)
    fig.suptitle("allocore scaling curves (flat is good)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def latency(rs, path):
    rows = sorted((n, b) for n, b in rs.items()
                  if n.startswith("BM_Latency_ScheduleOne/") and "p50_ns" in b)
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(7, 3.5))
    keys = [("p50_ns", "p50"), ("p99_ns", "p99"), ("p999_ns", "p99.9"), ("max_ns", "max")]
    width = 0.8 / len(rows)
    for i, (name, b) in enumerate(rows):
        short = name.replace("BM_Latency_ScheduleOne/", "").split("/manual_time")[0]
        xs = [k + i * width for k in range(len(keys))]
        ax.bar(xs, [b[key] for key, _ in keys], width=width, label=short)
    ax.set_xticks([k + width * (len(rows) - 1) / 2 for k in range(len(keys))])
    ax.set_xticklabels([label for _, label in keys])
    ax.set_yscale("log")
    ax.set_ylabel("ns per Schedule(1)")
    ax.axhline(1000, color="red", linestyle="--", linewidth=1, label="target p99 1 us")
    ax.set_title("Schedule(1) latency with churn")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def yunikorn(rs, path):
    rows = [(n, b) for n, _, b in summarize.anchor_rows(rs) if n in summarize.YUNIKORN]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(7, 3.5))
    nodes = [n for n, _ in rows]
    xs = range(len(nodes))
    ours = [b["allocs_per_s"] for _, b in rows]
    theirs = [summarize.YUNIKORN[n] for n in nodes]
    ax.bar([x - 0.2 for x in xs], theirs, width=0.4, label="YuniKorn v1.2.0")
    ax.bar([x + 0.2 for x in xs], ours, width=0.4, label="allocore")
    for x, a, y in zip(xs, ours, theirs):
        ax.annotate(f"{a / y:.0f}x", (x + 0.2, a), ha="center", va="bottom", fontsize=8)
    ax.set_ylim(top=max(ours) * 4)  # room for the ratios above the bars
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{n} nodes" for n in nodes])
    ax.set_yscale("log")
    ax.set_ylabel("allocations per second")
    ax.set_title("YuniKorn's BenchmarkScheduling shape (10,000 pods)")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def histogram(csv_path, path):
    uppers, counts = [], []
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            uppers.append(float(row["upper_ns"]))
            counts.append(int(row["count"]))
    if not uppers:
        return False
    fig, ax = plt.subplots(figsize=(7, 3.5))
    lowers = [0.0] + uppers[:-1]
    ax.bar(lowers, counts, width=[u - l for l, u in zip(lowers, uppers)], align="edge")
    ax.set_xscale("log")
    ax.set_xlabel("ns per allocation (one Schedule(max=1) call)")
    ax.set_ylabel("allocations")
    ax.set_title(os.path.basename(csv_path))
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def main(argv):
    if len(argv) == 4 and argv[1] == "--latency-csv":
        return 0 if histogram(argv[2], argv[3]) else 1
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] not in ("svg", "png")):
        print(__doc__, file=sys.stderr)
        return 2
    suffix = argv[3] if len(argv) == 4 else "svg"
    doc = summarize.load(argv[1])
    if doc is None:
        print(f"plot.py: cannot read {argv[1]}", file=sys.stderr)
        return 2
    rs, _ = summarize.runs(doc)
    os.makedirs(argv[2], exist_ok=True)
    made = []
    for name, fn in (("scaling", scaling), ("latency", latency), ("yunikorn", yunikorn)):
        name = f"{name}.{suffix}"
        if fn(rs, os.path.join(argv[2], name)):
            made.append(name)
    print("plot.py: wrote " + (", ".join(made) if made else "nothing (no matching benchmarks)"))
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
