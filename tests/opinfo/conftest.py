"""Print the OpInfo coverage figure at the end of a session that ran the OpInfo tests."""

from __future__ import annotations

import collections


def pytest_terminal_summary(terminalreporter):
    from .skips import PENDING, SKIPS
    from .test_opinfo import _ENTRIES, RESULTS

    if not RESULTS:
        return
    total = len(_ENTRIES)
    passed = sum(r.passed for r in RESULTS.values())
    fwd = [r for r in RESULTS.values() if r.status["forward_ad"] is not None]
    fwd_ok = sum(r.status["forward_ad"] for r in fwd)
    nodes = (
        sum(r.nodes_same for r in RESULTS.values()),
        sum(r.nodes_total for r in RESULTS.values()),
    )
    w = terminalreporter.write_line
    w("")
    w(
        f"OpInfo coverage: {passed}/{total} entries pass in float64 and float32 (outputs and "
        f"gradients); forward AD {fwd_ok}/{len(fwd)} of the entries it applies to; grad_fn names "
        f"as torch's on {nodes[0]}/{nodes[1]} results"
    )
    for label, table in (("skipped", SKIPS), ("pending", PENDING)):
        by_reason = collections.Counter(r for n, r in table.items() if n in _ENTRIES)
        for reason, n in by_reason.most_common():
            w(f"  {label} {n:3d}: {reason}")
