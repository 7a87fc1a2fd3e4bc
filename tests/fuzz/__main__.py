"""Long mode: ``python -m tests.fuzz --programs 100000 --seed 0`` (``--cpu-seconds 900``: stop
after 15 minutes of one core, however many programs that is; ``--until HH:MM`` UTC likewise).

Prints the figures (programs run, mismatches by open class and by new signature) and, for each
new signature, a shrunk standalone reproducer.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    ap.add_argument("--programs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0, help="first seed; programs use seed, seed+1...")
    ap.add_argument("--shrink", type=int, default=3, help="reproducers shrunk per new signature")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument(
        "--cpu-seconds",
        type=float,
        default=None,
        help="stop once the process has used this much CPU time",
    )
    ap.add_argument("--until", default=None, help="stop at this UTC wall-clock time (HH:MM)")
    args = ap.parse_args(argv)

    import torch

    import jupyter_autograd as ours

    from .runner import check, shrink

    t0 = time.perf_counter()
    c0 = time.process_time()
    stop = None
    if args.until:
        import datetime

        now = datetime.datetime.now(datetime.timezone.utc)
        h, m = map(int, args.until.split(":"))
        stop = time.time() + (now.replace(hour=h, minute=m, second=0) - now).total_seconds()
    known = collections.Counter()
    new = collections.defaultdict(list)
    steps = 0
    ran = 0
    for seed in range(args.seed, args.seed + args.programs):
        if (args.cpu_seconds is not None and time.process_time() - c0 >= args.cpu_seconds) or (
            stop is not None and time.time() >= stop
        ):
            break
        ran += 1
        r = check(seed, torch, ours)
        steps += len(r.program.steps)
        for key in set(r.known_hits) | ({r.known} if r.known else set()):
            known[key] += 1
        if r.new:
            new[r.signature].append(r)
        if not args.quiet and (seed - args.seed + 1) % 1000 == 0:
            print(
                f"... {seed - args.seed + 1} programs, {sum(map(len, new.values()))} new "
                f"mismatches, {sum(known.values())} known, {time.perf_counter() - t0:.0f}s",
                file=sys.stderr,
            )
    dt = time.perf_counter() - t0
    n_new = sum(map(len, new.values()))
    print(
        f"programs run: {ran} (seeds {args.seed}..{args.seed + ran - 1}), "
        f"{steps} steps, {dt:.1f}s wall, {time.process_time() - c0:.1f}s CPU"
    )
    print(f"new mismatches: {n_new} in {len(new)} signatures; programs meeting open classes:")
    for key, n in known.most_common():
        print(f"  open class {key}: {n}")
    for sig, rs in sorted(new.items(), key=lambda kv: -len(kv[1])):
        print(f"  new {sig}: {len(rs)} (seeds {[r.seed for r in rs[:8]]})")
    for sig, rs in sorted(new.items(), key=lambda kv: -len(kv[1])):
        for r in rs[: args.shrink]:
            p, m = shrink(r.program, torch, ours)
            print(f"\n# ---- {sig} (seed {r.seed}): {m}")
            print(p.reproducer(f"seed {r.seed}: {m}"))
    return 1 if n_new else 0


if __name__ == "__main__":
    sys.exit(main())
