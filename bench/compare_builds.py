#!/usr/bin/env python3
"""Times two builds of the same benchmark programs in one session, alternately,
and prints each benchmark's median real time under both with their ratio.

  compare_builds.py --before DIR --after DIR --run PROGRAM[:FILTER] ... \
      [--rounds 2] [--repetitions 3] [--json OUT.json]

DIR holds the programs (bench_gpu, ...). Round r runs every program of one
build, then of the other (the first build alternates between rounds, so a
drift of the machine's clocks falls on both); a benchmark's median is taken
over all repetitions of all rounds. Used by bench/device_session.sh's
`run compare` to check that a change keeps the GPU figures.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run_once(program, bench_filter, repetitions):
    """Each benchmark's real times (in its unit) from one run, by name."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    cmd = [program, f"--benchmark_repetitions={repetitions}", f"--benchmark_out={path}",
           "--benchmark_out_format=json"]
    if bench_filter:
        cmd.append(f"--benchmark_filter={bench_filter}")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        report = json.load(f)
    os.unlink(path)
    times = {}
    for b in report["benchmarks"]:
        if b.get("run_type") == "iteration" and "error_occurred" not in b:
            times.setdefault(b["run_name"], []).append((b["real_time"], b["time_unit"]))
    return times, report.get("context", {})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--run", action="append", required=True, metavar="PROGRAM[:FILTER]")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()

    builds = {"before": args.before, "after": args.after}
    samples = {"before": {}, "after": {}}
    context = {}
    for r in range(args.rounds):
        order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
        for build in order:
            for spec in args.run:
                program, _, bench_filter = spec.partition(":")
                print(f"round {r + 1}: {build} {program}", file=sys.stderr, flush=True)
                times, context = run_once(os.path.join(builds[build], program), bench_filter,
                                          args.repetitions)
                for name, values in times.items():
                    samples[build].setdefault(f"{program} {name}", []).extend(values)

    rows = []
    for name in samples["before"]:
        if name not in samples["after"]:
            continue
        unit = samples["before"][name][0][1]
        before = statistics.median(t for t, _ in samples["before"][name])
        after = statistics.median(t for t, _ in samples["after"][name])
        rows.append({"benchmark": name, "unit": unit, "before": before, "after": after,
                     "ratio": after / before, "samples": len(samples["after"][name])})
    width = max(len(r["benchmark"]) for r in rows)
    print(f"{'benchmark':<{width}}  {'before':>10}  {'after':>10}  after/before")
    for r in rows:
        print(f"{r['benchmark']:<{width}}  {r['before']:>8.4f}{r['unit']:>2}  "
              f"{r['after']:>8.4f}{r['unit']:>2}  {r['ratio']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"context": context, "rounds": args.rounds,
                       "repetitions": args.repetitions, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
