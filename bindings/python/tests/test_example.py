"""examples/sweep_guarantees.py --quick runs locally and on a Dask LocalCluster, end to end (it
writes the trace with the allocore command), with the same figures, and writes its plot."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from conftest import build_dir

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "sweep_guarantees.py"


def run_example(tmp_path: pathlib.Path, name: str, *extra: str) -> dict:
    allocore_cmd = build_dir() / "bin" / "allocore"
    assert allocore_cmd.exists(), f"{allocore_cmd} is missing: build the allocore target"
    png = tmp_path / f"{name}.png"
    out = tmp_path / f"{name}.json"
    subprocess.run([sys.executable, str(EXAMPLE), "--quick", "--allocore", str(allocore_cmd),
                    "-o", str(png), "--json", str(out), "--workers", "1", *extra],
                   check=True, timeout=240, env=dict(os.environ, MPLBACKEND="Agg"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    return json.loads(out.read_text())


def test_sweep_example_local_and_dask(tmp_path):
    local = run_example(tmp_path, "local")
    on_dask = run_example(tmp_path, "dask", "--dask")
    assert local == on_dask
    results = local["results"]
    # --quick: every 4th pod, GPU figures divided by 4 (2, 10 and 30 GPUs become 0.5, 2.5, 7.5)
    assert local["guarantees"] == [500, 2500, 7500] and local["budget"] == 10000
    assert len(results) == 3
    # The budget binds on the slice: pods waited, and the guarantee changed who waited.
    assert all(r["_partition"]["waits"]["count"] > 100 for r in results)
    assert any(r["_partition"]["waits"]["max_ms"] > 0 for r in results)
    assert results[0] != results[-1]
    assert all(set(r) >= {"root.ls", "root.be"} for r in results)
