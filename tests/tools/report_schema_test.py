#!/usr/bin/python3
"""allocore report --format json against docs/report.schema.json (python3-jsonschema).

usage: report_schema_test.py SOURCE_DIR ALLOCORE

Reports of several scenarios (waits, preemption, gangs, two partitions, placement, limits)
and a comparison are validated; a document with a field taken out must be refused, so the
validator is known to be checking.
"""

import copy
import json
import subprocess
import sys

import jsonschema


def report(allocore, *args):
    out = subprocess.run([allocore, "report", "--format", "json", *args], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    source, allocore = sys.argv[1], sys.argv[2]
    with open(f"{source}/docs/report.schema.json", encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    scenarios = [
        "tests/tools/report_workload.yaml",
        "tests/scenarios/priority-tree.yaml",
        "tests/scenarios/preemption-below-guarantee.yaml",
        "tests/scenarios/partitions.yaml",
        "tests/scenarios/acl-and-limits.yaml",
        "tests/scenarios/gang-started-timeout.yaml",
        "tests/scenarios/placement-create-template.yaml",
        "tests/scenarios/every-v3-step-kind.yaml",
    ]
    documents = []
    for scenario in scenarios:
        documents.append((scenario, report(allocore, f"{source}/{scenario}")))
    documents.append(("compare", report(allocore, "--compare", "scenario", "nodes=fair",
                                        "--trace", f"{source}/{scenarios[0]}")))
    for name, document in documents:
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        if errors:
            for error in errors[:5]:
                print(f"{name}: {list(error.path)}: {error.message}", file=sys.stderr)
            sys.exit(1)
    # The workload has waits, a preemption and a fairness index: the schema saw them.
    workload = documents[0][1]["partitions"][0]
    assert workload["waits"]["count"] > 0 and workload["fairness"], workload["waits"]
    assert any(q["preempted"] > 0 for q in workload["queues"])
    # A validator that accepts anything would pass the above: take a field out.
    broken = copy.deepcopy(documents[0][1])
    del broken["partitions"][0]["queues"][0]["waits"]
    if validator.is_valid(broken):
        print("report_schema_test: a report without waits was accepted", file=sys.stderr)
        sys.exit(1)
    print(f"report_schema_test: OK ({len(documents)} documents)")


if __name__ == "__main__":
    main()
