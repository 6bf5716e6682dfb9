#!/usr/bin/env python3
"""Sweep a queue's guarantee over the real Alibaba GPU trace and plot the pending times.

The trace (data/alibaba-gpu-v2023: 1,523 nodes, 8,152 pods with arrival and deletion times)
becomes a scenario with `allocore gen alibaba`: one queue per QoS class (root.ls,
root.guaranteed, root.burstable, root.be), one application with one ask per pod. The
configuration is examples/report/gpu-budget-ls-guaranteed.yaml's: a budget of GPUs for the one
user every pod runs as, guarantees on every queue, and root's fair sort ranking the queues by
usage against guarantee. The sweep changes one queue's GPU guarantee (root.ls by default) and
reports, for every point, the pending times of each leaf queue (allocore.report: waits p50,
p90, p99, max, and the distribution), then plots them with matplotlib to a PNG.

    PYTHONPATH=build/python python3 bindings/python/examples/sweep_guarantees.py -o sweep.png
    ... --quick            # every 4th pod, GPU figures scaled to a quarter: a few seconds
    ... --dask             # the same sweep on a Dask LocalCluster (python3-distributed)
    ... --scheduler ADDR   # ... or on a running Dask cluster (the trace on a shared path)

`allocore` (the command) writes the trace: --allocore PATH, else $ALLOCORE, else `allocore`
on PATH, else build/bin/allocore of this repository. --trace FILE uses a scenario already
written by `allocore gen alibaba` instead.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import allocore

REPO = pathlib.Path(__file__).resolve().parents[3]
QUEUES = ("root.ls", "root.guaranteed", "root.burstable", "root.be")

# examples/report/gpu-budget-ls-guaranteed.yaml, with the budget and one queue's GPU guarantee
# as parameters. Every guarantee names every resource type the pods ask for: YuniKorn compares
# a type without a guarantee by its raw quantity (memory in bytes), which would outweigh any
# GPU ratio.
GUARANTEES = {
    "ls": {"vcore": "400", "memory": "1Ti", "gpu": 30000},
    "guaranteed": {"vcore": "20", "memory": "64Gi", "gpu": 2000},
    "burstable": {"vcore": "100", "memory": "512Gi", "gpu": 6000},
    "be": {"vcore": "20", "memory": "64Gi", "gpu": 2000},
}


def config_yaml(queue: str, gpu_guarantee: int, budget: int, scale: float = 1.0) -> str:
    """The config with `queue`'s GPU guarantee and the budget given (milli-GPUs), the other
    queues' GPU guarantees multiplied by `scale`."""
    lines = [
        "partitions:",
        "  - name: default",
        "    nodesortpolicy: {type: fair}",
        "    queues:",
        "      - name: root",
        '        submitacl: "*"',
        "        limits:",
        "          - limit: a GPU budget",
        "            users: [u]",
        f"            maxresources: {{gpu: {budget}}}",
        "        queues:",
    ]
    for name, guaranteed in GUARANTEES.items():
        gpu = gpu_guarantee if f"root.{name}" == queue else round(guaranteed["gpu"] * scale)
        lines.append(f"          - name: {name}")
        lines.append(f"            resources: {{guaranteed: {{vcore: {guaranteed['vcore']}, "
                     f"memory: {guaranteed['memory']}, gpu: {gpu}}}}}")
    return "\n".join(lines) + "\n"


def pending_times(report: dict) -> dict:
    """What each sweep point keeps of its report (in the worker): per leaf queue, the pending
    time figures and their distribution."""
    out = {}
    for partition in report["partitions"]:
        for q in partition["queues"]:
            if q["leaf"]:
                out[q["path"]] = {"allocations": q["allocations"], "waits": q["waits"],
                                  "wait_cdf": q.get("wait_cdf", [])}
    out["_partition"] = {"waits": report["partitions"][0]["waits"],
                         "end_ms": report["end_ms"], "steps": report["steps"]}
    return out


def find_allocore(given: str | None) -> str:
    for candidate in (given, os.environ.get("ALLOCORE"), shutil.which("allocore"),
                      str(REPO / "build" / "bin" / "allocore")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("sweep_guarantees: no allocore command found (--allocore PATH)")


def slice_trace(every: int, out_dir: pathlib.Path) -> pathlib.Path:
    """Every `every`-th pod of the trace (in arrival order) with every node: a sample of the
    real trace that keeps its shape over time (long-running pods and short ones, day and
    night)."""
    data = REPO / "data" / "alibaba-gpu-v2023"
    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(data / "openb_node_list_all_node.csv", out_dir)
    with open(data / "openb_pod_list_default.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    created = header.index("creation_time")
    body.sort(key=lambda r: int(r[created] or 0))
    with open(out_dir / "openb_pod_list_default.csv", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([header] + body[::every])
    return out_dir


def write_trace(allocore_cmd: str, out: pathlib.Path, every: int = 1) -> None:
    command = [allocore_cmd, "gen", "alibaba", "-o", str(out)]
    if every > 1:
        command += ["--data", str(slice_trace(every, out.parent / "data"))]
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL)


def plot(points: list, results: list, queue: str, path: pathlib.Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    xs = [g / 1000 for g in points]
    for i, q in enumerate(QUEUES):
        for figure, style in (("p90_ms", "-o"), ("p99_ms", "--s")):
            ys = [max(r.get(q, {}).get("waits", {}).get(figure, 0), 1) / 1000 for r in results]
            left.plot(xs, ys, style, color=f"C{i}", label=f"{q} {figure[:3]}")
    left.set_yscale("log")
    left.set_xlabel(f"{queue} GPU guarantee (GPUs)")
    left.set_ylabel("pending time (s, log; solid p90, dashed p99)")
    left.set_title("pending time per queue")
    left.legend(fontsize=7, ncol=2)
    left.grid(True, which="both", alpha=0.3)
    for g, r in zip(points, results):
        cdf = r.get(queue, {}).get("wait_cdf", [])
        if cdf:
            right.step([max(ms, 1) / 1000 for ms, _ in cdf], [share for _, share in cdf],
                       where="post", label=f"{g / 1000:g} GPUs")
    right.set_xscale("log")
    right.set_xlabel("pending time (s, log)")
    right.set_ylabel(f"share of {queue}'s allocations")
    right.set_title(f"{queue}: pending-time distribution")
    right.legend(fontsize=8, title="guarantee")
    right.grid(True, which="both", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", default="sweep_guarantees.png", help="the PNG")
    parser.add_argument("--json", help="also write the sweep's figures as JSON here")
    parser.add_argument("--queue", default="root.ls", choices=QUEUES)
    parser.add_argument("--guarantees", default="5,10,20,30,38",
                        help="the queue's GPU guarantees to sweep, in GPUs (default 5,10,20,30,38)")
    parser.add_argument("--budget", type=float, default=40, help="the GPU budget (default 40)")
    parser.add_argument("--semantics", choices=allocore.SEMANTICS)
    parser.add_argument("--trace", help="a scenario written by `allocore gen alibaba`")
    parser.add_argument("--allocore", help="the allocore command that writes the trace")
    parser.add_argument("--sample", type=int, default=1,
                        help="keep every Nth pod, and divide every GPU figure (budget, "
                             "guarantees) by N (default 1: the whole trace)")
    parser.add_argument("--quick", action="store_true",
                        help="--sample 4 and three points (2, 10, 30 GPUs before scaling)")
    parser.add_argument("--dask", action="store_true", help="run on a Dask LocalCluster")
    parser.add_argument("--scheduler", help="run on the Dask cluster at this address")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args()

    sample = args.sample
    points = args.guarantees
    if args.quick:
        sample = 4 if sample == 1 else sample
        points = "2,10,30" if points == parser.get_default("guarantees") else points
    scale = 1 / sample
    guarantees = [round(float(g) * 1000 * scale) for g in points.split(",")]
    budget = args.budget * scale
    budget_milli = round(budget * 1000)

    with tempfile.TemporaryDirectory(prefix="allocore-sweep-") as tmp:
        trace = pathlib.Path(args.trace) if args.trace else pathlib.Path(tmp) / "trace.yaml"
        if not args.trace:
            started = time.perf_counter()
            write_trace(find_allocore(args.allocore), trace, sample)
            print(f"trace written in {time.perf_counter() - started:.1f} s: {trace}",
                  file=sys.stderr)
        configs = [allocore.Config(yaml=config_yaml(args.queue, g, budget_milli, scale),
                                   semantics=args.semantics, label=f"{g / 1000:g} GPUs")
                   for g in guarantees]

        started = time.perf_counter()
        if args.dask or args.scheduler:
            from distributed import Client, LocalCluster

            if args.scheduler:
                client, cluster = Client(args.scheduler), None
            else:
                cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None)
                client = Client(cluster)
            try:
                results = allocore.sweep(trace, configs, summarize=pending_times, client=client)
            finally:
                client.close()
                if cluster is not None:
                    cluster.close()
            where = "Dask"
        else:
            results = allocore.sweep(trace, configs, summarize=pending_times,
                                     max_workers=args.workers)
            where = "local processes"
        elapsed = time.perf_counter() - started

    print(f"{len(configs)} runs on {where} in {elapsed:.1f} s "
          f"({results[0]['_partition']['steps']} steps each)", file=sys.stderr)
    header = f"{args.queue + ' guarantee':>22}" + "".join(
        f"{q + ' p90 / p99 (s)':>34}" for q in QUEUES)
    print(header)
    for g, r in zip(guarantees, results):
        cells = "".join(
            f"{r[q]['waits']['p90_ms'] / 1000:>16.1f} / {r[q]['waits']['p99_ms'] / 1000:<15.1f}"
            if q in r else f"{'-':>34}" for q in QUEUES)
        print(f"{g / 1000:>17g} GPUs{cells}")

    title = (f"Alibaba GPU trace{f' (every {sample}th pod)' if sample > 1 else ''}: "
             f"{args.queue}'s guarantee under a {budget:g}-GPU budget")
    plot(guarantees, results, args.queue, pathlib.Path(args.output), title)
    print(f"wrote {args.output}", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"guarantees": guarantees, "budget": budget_milli, "results": results}, f,
                      indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
