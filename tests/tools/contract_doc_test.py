#!/usr/bin/env python3
"""The project's scenario-format reference covers the public contract.

Usage: contract_doc_test.py PROJECT_DOC CONTRACT_DOC

Every step kind, record type, record key, expect key, top-level key and release reason that the
public contract (the shared scenario-format document) names must appear in the project's own
reference, docs/scenario-format.md: where the two could differ, the contract wins and this test
notices. Names are taken from the contract's code blocks, so a new key there fails here until
the project documents it.
"""
import re
import sys


def code_blocks(text):
    return re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)


def contract_names(text):
    names = {}
    for block in code_blocks(text):
        for kind in re.findall(r"^\s*-\s+([a-z_]+):\s*[{\n]", block, flags=re.M):
            names.setdefault(kind, "step or list entry")
        # Keys of a step's body ({id: ..., task_group: ...}) at its first level, continuation
        # lines included, comments dropped.
        plain = re.sub(r"#[^\n]*", "", block)
        for start in re.finditer(r"^\s*-\s+[a-z_]+:\s*\{", plain, flags=re.M):
            depth, i, body = 1, start.end(), []
            while i < len(plain) and depth > 0:
                c = plain[i]
                depth += c == "{"
                depth -= c == "}"
                body.append(c if depth == 1 else " ")
                i += 1
            for key in re.findall(r"(?:^|[,\s])([a-z_]+):", "".join(body)):
                names.setdefault(key, "step key")
        for record in re.findall(r'"type"\s*:\s*"([a-z_]+)"', block):
            names.setdefault(record, "record type")
        for key in re.findall(r'"([a-z_]+)"\s*:', block):
            names.setdefault(key, "record key")
        for key in re.findall(r"^([a-z_]+):", block, flags=re.M):
            names.setdefault(key, "top-level key")
        in_expect = False
        for line in block.splitlines():
            if re.match(r"^expect:", line):
                in_expect = True
                continue
            if in_expect and re.match(r"^\S", line):
                in_expect = False
            match = re.match(r"^  ([a-z_]+):", line)
            if in_expect and match:
                names.setdefault(match.group(1), "expect key")
        for reason in re.findall(r"reason:\s*([a-z_]+)", block):
            names.setdefault(reason, "release reason")
    return names


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    project = open(sys.argv[1], encoding="utf-8").read()
    contract = open(sys.argv[2], encoding="utf-8").read()
    names = contract_names(contract)
    if len(names) < 30:
        print(f"only {len(names)} names found in {sys.argv[2]}: the extraction is broken",
              file=sys.stderr)
        return 1
    missing = sorted(
        (what, name) for name, what in names.items()
        if not re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", project))
    for what, name in missing:
        print(f"{sys.argv[1]} does not mention the contract's {what} `{name}`", file=sys.stderr)
    print(f"contract_doc_test: {len(names)} names of the contract, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
