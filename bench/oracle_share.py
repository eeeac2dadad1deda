#!/usr/bin/env python3
"""Oracle-check overhead as a share of scenario time, from a callgrind profile.

run_scenario has no switch that turns the property oracles off, so their cost cannot be had as
the difference of two timed runs. This script profiles the fixed seed block of
BM_SimSwarmOracleShare under callgrind instead and reads the call graph:

  share = sum of the inclusive cost of every call into a ckpt::sim::Oracles member made from
          outside Oracles  /  the inclusive cost of every run_scenario call.

Counting only calls that enter Oracles from outside avoids counting a nested oracle call twice
(at_crash_point calls visible_link_step, for instance). Lambdas defined inside Oracles members
are not entry points: a std::any_of that calls one is already inside an oracle call. The cost
is callgrind's instruction count (Ir), not time: a cache-missing oracle would weigh more in time
than here. Work the trainer model does only to hand an oracle its arguments (a state export, a
copied record) happens before the call and is not in the figure; it is listed separately when a
caller-callee pair below is known to exist for the oracles alone.

A second estimate, in time rather than instructions, samples the same block with perf (DWARF
call graphs) and counts the samples with an Oracles frame on the stack. A rank's stack ends at
its fiber's base (make_fcontext), so a sample counts as scenario work when its stack reaches
run_scenario or a fiber base. It needs perf, is statistical (a few thousand samples), and
agrees with callgrind to within a couple of points.

Usage:
  python3 bench/oracle_share.py [path/to/ckpt_bench]     # callgrind profile, then report
  python3 bench/oracle_share.py --profile callgrind.out    # report on an existing profile
  python3 bench/oracle_share.py --perf [path/to/ckpt_bench]  # perf sampling estimate
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

# The checks are the checkers (one class per concern) and the ledger writer; the fan-out over them
# is inlined into the simulation, so it has no frame of its own.
ORACLE_MEMBER = re.compile(r"^ckpt::sim::(\w+Checker|LedgerWriter)::~?[A-Za-z_][A-Za-z_0-9]*\(")
INSIDE_ORACLES_PATTERN = re.compile(r"ckpt::sim::(\w+Checker|LedgerWriter)::")
RUN_SCENARIO = re.compile(r"^ckpt::sim::run_scenario\(")

# Calls the trainer model makes only to build an oracle's arguments. Matched on the caller's and
# the callee's names; a pair that no longer exists simply matches nothing.
EXPORT_STATEFUL_CALLBACKS = re.compile(r"^ckpt::export_stateful_callbacks(\[abi:cxx11\])?\(")
ARGUMENT_PREPARATION = [
    # restore_from_checkpoint exports every restored callback only for after_callback_restore.
    (re.compile(r"^ckpt::sim::RankTrainer::restore_from_checkpoint\("), EXPORT_STATEFUL_CALLBACKS),
    # write_trainer_state's `live` export feeds only the CheckpointRecord handed to the oracle.
    (re.compile(r"^ckpt::sim::RankTrainer::write_trainer_state\("), EXPORT_STATEFUL_CALLBACKS),
]


def parse_call_edges(path):
    """Returns {(caller, callee): [calls, inclusive Ir]} and the profile's total Ir."""
    names = {}  # fn= and cfn= share one table of compressed names
    edges = collections.defaultdict(lambda: [0, 0])
    caller = callee = None
    pending_calls = None
    total = None
    compressed = re.compile(r"^\((\d+)\)(?: (.*))?$")

    def resolve(text):
        match = compressed.match(text)
        if not match:
            return text
        ident, name = match.groups()
        if name is not None:
            names[ident] = name
            return name
        return names.get(ident, text)

    with open(path, encoding="utf-8", errors="replace") as profile:
        for line in profile:
            line = line.rstrip("\n")
            if pending_calls is not None:
                # The line after calls= holds the call's position and its inclusive cost.
                fields = line.split()
                if fields and (fields[0][0].isdigit() or fields[0][0] in "+-*"):
                    edge = edges[(caller, callee)]
                    edge[0] += pending_calls
                    edge[1] += int(fields[1]) if len(fields) > 1 else 0
                    pending_calls = None
                    continue
            if line.startswith("fn="):
                caller = resolve(line[3:])
            elif line.startswith("cfn="):
                callee = resolve(line[4:])
            elif line.startswith("calls="):
                pending_calls = int(line[6:].split()[0])
            elif line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
    return edges, total


def profile(binary, out_path):
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out_path}",
        binary,
        "--benchmark_filter=^BM_SimSwarmOracleShare",
    ]
    print("$ " + " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True, stdout=sys.stderr)


def short(name, width=100):
    """The qualified name without its parameter list, cut to `width`."""
    name = name.replace("(anonymous namespace)", "{anonymous}").split("(")[0]
    return name if len(name) <= width else name[: width - 3] + "..."


def report(path):
    edges, total = parse_call_edges(path)
    scenario = sum(cost for (caller, callee), (_, cost) in edges.items()
                   if RUN_SCENARIO.match(callee) and not RUN_SCENARIO.match(caller or ""))
    if scenario == 0:
        sys.exit("no run_scenario call in the profile: was BM_SimSwarmOracleShare run?")

    by_callee = collections.Counter()
    by_caller = collections.Counter()
    calls = collections.Counter()
    for (caller, callee), (count, cost) in edges.items():
        if ORACLE_MEMBER.match(callee or "") and not ORACLE_MEMBER.match(caller or ""):
            by_callee[callee] += cost
            by_caller[short(caller)] += cost
            calls[callee] += count
    oracles = sum(by_callee.values())

    preparation = collections.Counter()
    for (caller, callee), (_, cost) in edges.items():
        for caller_re, callee_re in ARGUMENT_PREPARATION:
            if caller_re.match(caller or "") and callee_re.match(callee or ""):
                preparation[f"{short(caller, 60)} -> {short(callee, 60)}"] += cost
    prepared = sum(preparation.values())

    print(f"profile: {path}")
    print(f"program total Ir:       {total:>15,}")
    print(f"run_scenario Ir:        {scenario:>15,}")
    print(f"oracle entry Ir:        {oracles:>15,}  share {100.0 * oracles / scenario:5.1f}%")
    print(f"+ argument preparation: {prepared:>15,}  share {100.0 * (oracles + prepared) / scenario:5.1f}%")
    print("\noracle entry points (inclusive Ir, calls, share of run_scenario):")
    for callee, cost in by_callee.most_common():
        print(f"  {100.0 * cost / scenario:5.1f}%  {cost:>13,}  {calls[callee]:>9,}  {short(callee)}")
    print("\ncallers into the oracles:")
    for caller, cost in by_caller.most_common(10):
        print(f"  {100.0 * cost / scenario:5.1f}%  {cost:>13,}  {caller}")
    if preparation:
        print("\nargument preparation for the oracles alone:")
        for pair, cost in preparation.most_common():
            print(f"  {100.0 * cost / scenario:5.1f}%  {cost:>13,}  {pair}")


def perf_estimate(binary, repetitions):
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "perf.data")
        command = ["perf", "record", "-o", data, "-F", "4000", "--call-graph", "dwarf,32768", binary,
                   "--benchmark_filter=^BM_SimSwarmOracleShare", f"--benchmark_repetitions={repetitions}"]
        print("$ " + " ".join(command), file=sys.stderr)
        subprocess.run(command, check=True, stdout=sys.stderr)
        script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], check=True,
                                capture_output=True, text=True).stdout
    work = oracle = 0
    for sample in script.split("\n\n"):
        if "run_scenario" in sample or "make_fcontext" in sample:
            work += 1
            oracle += INSIDE_ORACLES_PATTERN.search(sample) is not None
    if work == 0:
        sys.exit("no scenario samples: is perf allowed to sample user space here?")
    spread = 100.0 * (oracle / work * (1 - oracle / work) / work) ** 0.5
    print(f"perf samples in scenario work: {work:,}; with an Oracles frame: {oracle:,}")
    print(f"oracle share of scenario time: {100.0 * oracle / work:.1f}% (+/- {spread:.1f} points, one sigma)")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default="build/release/bench/ckpt_bench")
    parser.add_argument("--profile", help="an existing callgrind.out of BM_SimSwarmOracleShare")
    parser.add_argument("--perf", action="store_true", help="estimate from perf samples instead")
    parser.add_argument("--repetitions", type=int, default=8, help="benchmark repetitions under perf")
    args = parser.parse_args()
    if args.perf:
        perf_estimate(args.binary, args.repetitions)
        return
    if args.profile:
        report(args.profile)
        return
    with tempfile.TemporaryDirectory() as scratch:
        out_path = os.path.join(scratch, "callgrind.out")
        profile(args.binary, out_path)
        report(out_path)


if __name__ == "__main__":
    main()
