"""``python -m tests.opinfo [--json FILE] [name-prefix...]``: run OpInfo entries (the skip list
included) and print one line per entry, then the coverage figures."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from . import harness
from .skips import PENDING, SKIPS, reason_of


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*", help="entry ids, or prefixes ending in * (default: all)")
    ap.add_argument("--json", help="write per-entry results here")
    ap.add_argument("-v", action="store_true", help="print every failure message")
    ap.add_argument("--failing", action="store_true", help="print failing entries only")
    ap.add_argument(
        "--prune",
        action="store_true",
        help="delete entries that now pass from the pending lists in skips.py",
    )
    a = ap.parse_args(argv)
    entries = harness.all_entries()
    names = [
        n
        for n in entries
        if not a.names or any(n == p or (p.endswith("*") and n.startswith(p[:-1])) for p in a.names)
    ]
    out = {}
    t0 = time.perf_counter()
    for n in names:
        r = harness.run_entry(entries[n])
        skip = reason_of(n)
        out[n] = {
            "passed": r.passed,
            "fwd": r.status["forward_ad"],
            "status": r.status,
            "errors": r.errors,
            "seconds": round(r.seconds, 3),
            "skip": skip,
            "samples": r.samples,
            "nodes": [r.nodes_same, r.nodes_total],
        }
        if a.failing and r.passed_all:
            continue
        flag = "PASS" if r.passed_all else ("pass" if r.passed else "FAIL")
        line = f"{flag} {n:45s} {r.seconds:6.2f}s" + (f"  [skip: {skip}]" if skip else "")
        if not r.passed_all:
            first = next(iter(r.errors.items()), ("", ""))
            msg = f"{first[0]}: {first[1]}" if not a.v else r.summary()
            line += "\n     " + msg[: 400 if not a.v else 4000].replace("\n", "\n     ")
        print(line, flush=True)
    n_pass = sum(v["passed"] for v in out.values())
    n_fwd = sum(v["passed"] and v["fwd"] is not False for v in out.values())
    print(
        f"\n{n_pass}/{len(out)} entries pass outputs and gradients (forward AD too: {n_fwd}); "
        f"{time.perf_counter() - t0:.0f}s; {len(SKIPS)} on the skip list"
    )
    if a.prune:
        _prune(
            [n for n, v in out.items() if v["passed"] and v["fwd"] is not False and n in PENDING]
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


def _rewrap(m) -> str:
    """A pending list laid out again, four spaces in, at most 100 columns."""
    items = re.findall(r'"[^"]*",', m.group(2))
    lines, line = [], "   "
    for it in items:
        if len(line) + 1 + len(it) > 100:
            lines.append(line)
            line = "   "
        line += " " + it
    if items:
        lines.append(line)
    return m.group(1) + "\n" + "".join(ln + "\n" for ln in lines) + "]"


def _prune(names) -> None:
    path = Path(__file__).with_name("skips.py")
    text = path.read_text()
    for n in names:
        text = re.sub(r'(?m)^(\s*)"' + re.escape(n) + r'",\s?', r"\1", text)
        text = text.replace(' "' + n + '",', "")
    text = re.sub(r"(?m)^\s+\n", "", text)
    text = re.sub(r"(?ms)^(_[A-Z0-9_]+ = \[)\n(.*?)^\s*\]", _rewrap, text)
    path.write_text(text)
    print(f"pruned {len(names)} now-passing entries from the pending lists: {' '.join(names)}")


if __name__ == "__main__":
    sys.exit(main())
