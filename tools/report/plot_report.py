#!/usr/bin/python3
"""The pictures of `allocore report` as PNG files (Debian python3-matplotlib).

usage: plot_report.py REPORT_JSON OUT_DIR

REPORT_JSON is what `allocore report --format json` (or `-o DIR`: DIR/report.json) writes, a
report or a comparison (--compare). For each partition:
  waits-PARTITION.png     pending time CDF per leaf queue (a comparison: A solid, B dashed)
  usage-PARTITION.png     usage over time per queue and resource type, guarantee and max dashed
  fairness-PARTITION.png  each parent's children as shares of the cluster, and Jain's index
  nodes-PARTITION.png     the share of node time at each utilisation
A comparison draws these for A and B (suffixes -a, -b) and waits-PARTITION.png for both.
"""

import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display
import matplotlib.pyplot as plt  # noqa: E402

UNITS = {"vcore": (1000.0, "vcore (cores)"), "memory": (1024.0 ** 3, "memory (GiB)")}


def time_axis(report):
    end = report["end_ms"]
    for unit, label in ((86400000, "days"), (3600000, "h"), (60000, "min"), (1000, "s")):
        if end > 2 * unit:
            return unit, f"logical time ({label})"
    return 1, "logical time (ms)"


def times(report, series):
    unit, _ = time_axis(report)
    return [(b + 0.5) * report["bucket_ms"] / unit for b in range(len(series))]


def cdf_xy(cdf):
    if not cdf:
        return [], []
    xs = [max(cdf[0][0], 1)]
    ys = [0.0]
    for millis, share in cdf:
        xs.append(max(millis, 1))
        ys.append(share)
    return xs, ys


def waits(partitions, path):
    """partitions: [(label, linestyle, partition)]"""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    colours = {}
    for label, style, partition in partitions:
        for q in partition["queues"]:
            if not q["leaf"] or not q["wait_cdf"]:
                continue
            colour = colours.setdefault(q["path"], f"C{len(colours) % 10}")
            xs, ys = cdf_xy(q["wait_cdf"])
            name = q["path"] if not label else f"{q['path']} ({label})"
            ax.step(xs, ys, where="post", linestyle=style, color=colour, label=name)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("pending time (ms, log scale; 0 drawn at 1)")
    ax.set_ylabel("share of allocations")
    ax.set_title("pending time, submission to allocation")
    ax.grid(alpha=0.3)
    if colours:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def usage(report, partition, path):
    panels = []
    for q in partition["queues"]:
        for u in q["usage"]:
            if u["series"] and (u["peak"] > 0 or u["guaranteed"] is not None or u["max"] is not None):
                panels.append((q, u))
    panels = panels[:36]
    if not panels:
        return False
    cols = 3
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.8 * rows), squeeze=False)
    _, xlabel = time_axis(report)
    for ax, (q, u) in zip(axes.flat, panels):
        divisor, ylabel = UNITS.get(u["type"], (1.0, u["type"]))
        ax.plot(times(report, u["series"]), [v / divisor for v in u["series"]], color="C0",
                label="usage")
        if u["guaranteed"] is not None:
            ax.axhline(u["guaranteed"] / divisor, color="C2", linestyle="--", label="guaranteed")
        if u["max"] is not None:
            ax.axhline(u["max"] / divisor, color="C3", linestyle="--", label="max")
        ax.set_title(f"{q['path']}: {u['type']}", fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.set_ylim(bottom=0)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def fairness(report, partition, path):
    parents = partition["fairness"]
    if not parents:
        return False
    fig, axes = plt.subplots(len(parents), 2, figsize=(12, 3.4 * len(parents)), squeeze=False)
    _, xlabel = time_axis(report)
    for row, f in zip(axes, parents):
        shares, index = row
        children = [q for q in partition["queues"] if q["parent"] == f["parent"]]
        for i, child in enumerate(children):
            if not child["share_series"]:
                continue
            shares.plot(times(report, child["share_series"]), child["share_series"],
                        color=f"C{i % 10}", label=child["path"])
            if child["guarantee_share"] is not None:
                shares.axhline(child["guarantee_share"], color=f"C{i % 10}", linestyle="--")
        shares.set_title(f"children of {f['parent']}: share of the cluster (dashed: guarantee)",
                         fontsize=9)
        shares.set_xlabel(xlabel, fontsize=8)
        shares.set_ylabel("dominant share", fontsize=8)
        shares.set_ylim(bottom=0)
        shares.legend(fontsize=7)
        series = [math.nan if v is None else v for v in f["series"]]
        index.plot(times(report, series), series, color="C4")
        index.set_ylim(0, 1.05)
        mean = "-" if f["mean"] is None else f"{f['mean']:.3f}"
        index.set_title(f"Jain's index of {f['parent']} (time-weighted mean {mean})", fontsize=9)
        index.set_xlabel(xlabel, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def nodes(partition, path):
    bins = [b["bin"] for b in partition["nodes"]["utilisation_time_share"]]
    shares = [b["share"] for b in partition["nodes"]["utilisation_time_share"]]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar(range(len(bins)), shares, color="C0")
    ax.set_xticks(range(len(bins)))
    ax.set_xticklabels(bins, rotation=45, fontsize=8)
    ax.set_ylabel("share of node time")
    ax.set_title(f"node utilisation, {partition['nodes']['count']} nodes, "
                 f"policy {partition['node_policy']}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def draw_report(report, out, suffix=""):
    written = []
    for p in report["partitions"]:
        name = p["name"]
        waits([("", "-", p)], os.path.join(out, f"waits-{name}{suffix}.png"))
        written.append(f"waits-{name}{suffix}.png")
        if usage(report, p, os.path.join(out, f"usage-{name}{suffix}.png")):
            written.append(f"usage-{name}{suffix}.png")
        if fairness(report, p, os.path.join(out, f"fairness-{name}{suffix}.png")):
            written.append(f"fairness-{name}{suffix}.png")
        nodes(p, os.path.join(out, f"nodes-{name}{suffix}.png"))
        written.append(f"nodes-{name}{suffix}.png")
    return written


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr if len(sys.argv) != 2 else sys.stdout)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    with open(sys.argv[1], encoding="utf-8") as f:
        document = json.load(f)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if "comparison_version" in document:
        written = draw_report(document["a"], out, "-a") + draw_report(document["b"], out, "-b")
        for pa in document["a"]["partitions"]:
            pb = [p for p in document["b"]["partitions"] if p["name"] == pa["name"]]
            sides = [("A", "-", pa)] + ([("B", "--", pb[0])] if pb else [])
            waits(sides, os.path.join(out, f"waits-{pa['name']}.png"))
            written.append(f"waits-{pa['name']}.png")
    else:
        written = draw_report(document, out)
    print("plot_report: wrote " + ", ".join(written))


if __name__ == "__main__":
    main()
