#!/usr/bin/env bash
# bench/plot.py draws the three benchmark figures from a Google Benchmark JSON and a latency
# histogram from `allocore run --latency-csv`; tools/report/plot_report.py the report's. Usage: plot_test.sh SOURCE_DIR ALLOCORE
set -euo pipefail
source_dir=${1:?usage: plot_test.sh SOURCE_DIR ALLOCORE}
allocore=${2:?usage: plot_test.sh SOURCE_DIR ALLOCORE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$source_dir/bench/plot.py" "$source_dir/tests/tools/bench_fixture.json" "$tmp/out"
for figure in scaling.svg latency.svg yunikorn.svg; do
  grep -q "<svg" "$tmp/out/$figure" || { echo "plot_test: $figure missing" >&2; exit 1; }
done
"$allocore" run --quiet --latency-csv "$tmp/latency.csv"
[ "$(head -n 1 "$tmp/latency.csv")" = "upper_ns,count" ]
# The built-in walk-through makes 11 allocations: the histogram counts each once.
[ "$(tail -n +2 "$tmp/latency.csv" | awk -F, '{s += $2} END {print s}')" = 11 ]
/usr/bin/python3 "$source_dir/bench/plot.py" --latency-csv "$tmp/latency.csv" "$tmp/latency.png"
[ -s "$tmp/latency.png" ]
# tools/report/plot_report.py draws the report's pictures from its JSON, a comparison's too.
"$allocore" report "$source_dir/tests/tools/report_workload.yaml" -o "$tmp/report" 2>/dev/null
/usr/bin/python3 "$source_dir/tools/report/plot_report.py" "$tmp/report/report.json" "$tmp/report"
for figure in waits-default.png usage-default.png fairness-default.png nodes-default.png; do
  [ "$(head -c 4 "$tmp/report/$figure" | tail -c 3)" = PNG ] ||
    { echo "plot_test: report $figure missing" >&2; exit 1; }
done
"$allocore" report --compare scenario nodes=fair --trace \
  "$source_dir/tests/tools/report_workload.yaml" -o "$tmp/compare" 2>/dev/null
/usr/bin/python3 "$source_dir/tools/report/plot_report.py" "$tmp/compare/report.json" "$tmp/compare"
for figure in waits-default.png usage-default-a.png usage-default-b.png; do
  [ -s "$tmp/compare/$figure" ] || { echo "plot_test: comparison $figure missing" >&2; exit 1; }
done
echo "plot_test: OK"
