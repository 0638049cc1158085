#!/usr/bin/env python3
"""The report of one scenario of bench/rounds.sh (see its header for what is measured).

    rounds_report.py SCENARIO REPO WORK T_PLAN0 T_PLAN1 T_APPLY0 T_APPLY1 ROUNDS

Reads WORK/SCENARIO.{plan,apply}.{json,err} (stderr lines stamped with their arrival, ns),
WORK/SCENARIO.checks/runs (each check's own start, end and slot, ns), WORK/SCENARIO.requests
(the scripted server's log), and the repository's traces, base-run cache and `list --json`.
"""

import glob
import json
import os
import re
import subprocess
import sys

scenario, repo, work = sys.argv[1], sys.argv[2], sys.argv[3]
t_plan0, t_plan1, t_apply0, t_apply1 = (int(x) for x in sys.argv[4:8])
max_rounds = int(sys.argv[8])
gitdir = os.path.join(repo, ".git")


def stamped(path):
    out = []
    for line in open(path, errors="replace"):
        stamp, _, text = line.partition(" ")
        out.append((int(stamp), text.rstrip("\n")))
    return out


def papayu(*args):
    return json.loads(subprocess.run(["git", "-C", repo, "papayu", *args], check=True,
                                     capture_output=True, text=True).stdout)


plan_err = stamped(os.path.join(work, scenario + ".plan.err"))
apply_err = stamped(os.path.join(work, scenario + ".apply.err"))
runs = []  # (start ns, end ns, slot)
runs_file = os.path.join(work, scenario + ".checks", "runs")
if os.path.exists(runs_file):
    for line in open(runs_file):
        a, b, slot = line.split()
        runs.append((int(a), int(b), slot))

# Windows: the plan command, then each round of apply (a round after the first starts when
# papayu says it asks for a correction).
windows = [("plan", t_plan0, t_plan1)]
starts = [t_apply0] + [t for t, text in apply_err if re.match(r"round \d+ of \d+: asking", text)]
for i, start in enumerate(starts):
    end = starts[i + 1] if i + 1 < len(starts) else t_apply1
    windows.append(("round %d" % (i + 1), start, end))

# What papayu reports as check time: each round's check in its trace (apply, then the refine
# rounds in order), each base run in the base-run cache (placed in the window it was written).
traces = []
for f in glob.glob(os.path.join(gitdir, "papayu", "traces", "*.json")):
    t = json.load(open(f))
    if t.get("kind") in ("apply", "refine") and t.get("check"):
        traces.append((t["created_at"], t["kind"] != "apply", t["check"]["duration_ms"]))
traces.sort(key=lambda t: (t[1], t[0]))
reported = {name: [] for name, _, _ in windows}
for i, (_, _, ms) in enumerate(traces):
    if i + 1 < len(windows):
        reported[windows[i + 1][0]].append(ms / 1000)
for f in glob.glob(os.path.join(gitdir, "papayu", "cache", "baserun*")):
    mtime = os.stat(f).st_mtime_ns
    millis = json.load(open(f)).get("millis")
    for name, a, b in windows:
        if a <= mtime <= b + 50_000_000 and millis is not None:
            reported[name].append(millis / 1000)
            break

plans = papayu("list", "--json", "--all")["plans"]
requests = sum((p.get("stats") or {}).get("requests", 0) for p in plans)
tokens_in = sum((p.get("stats") or {}).get("input_tokens", 0) for p in plans)
tokens_out = sum((p.get("stats") or {}).get("output_tokens", 0) for p in plans)
served = sum(1 for _ in open(os.path.join(work, scenario + ".requests"))) if os.path.exists(
    os.path.join(work, scenario + ".requests")) else 0

applied = json.load(open(os.path.join(work, scenario + ".apply.json")))
last = (applied.get("rounds") or {}).get("last") or applied.get("plan")
final = next((p for p in plans if p["id"] == last), None)
verdict = (final or {}).get("verdict") or applied.get("verdict") or {}


def describe(v):
    if not v:
        return "no verdict"
    words = [v.get("status", "?")]
    if v.get("fixes") is not None:
        words.append("fixes %s, breaks %s, still failing %s" % (v["fixes"], v["breaks"], v["still_failing"]))
    if v.get("weakens"):
        words.append("weakens " + ", ".join(v["weakens"]))
    if v.get("flaky"):
        words.append("flaky " + ", ".join(v["flaky"]))
    if v.get("reproduction") is not None:
        words.append("reproduction passes" if v["reproduction"] else "reproduction fails")
    return "; ".join(words)


stops = [text for _, text in apply_err if text.startswith("rounds: stopped")]
rounds_run = len(windows) - 1
print()
print("%s: %d of %d rounds; %s" % (scenario, rounds_run, max_rounds,
                                   stops[0] if stops else "(no stop line: %s)" % (
                                       apply_err[-1][1] if apply_err else "no output")))
for _, text in plan_err:
    if "reproduc" in text or "repair" in text:
        print("  plan: " + text.strip())
print("  verdict: " + describe(verdict))
print("  cost: %d requests (%d served), %d tokens in, %d out" % (requests, served, tokens_in, tokens_out))
print("  %-8s %9s %7s %11s %11s %10s %9s" % ("", "wall ms", "checks", "check s", "command s", "papayu ms", "own/check"))
for name, a, b in windows:
    inside = [r for r in runs if a <= r[0] <= b]
    own_times = sorted((e - s) / 1e9 for s, e, _ in inside)
    rep = reported[name]
    # A run papayu reports nowhere is counted at the command's own time (the shortest first,
    # which leaves papayu the larger share).
    unreported = own_times[:max(0, len(own_times) - len(rep))]
    check = sum(rep) + sum(unreported)
    wall = (b - a) / 1e9
    own = wall - check
    ratio = "%.1f%%" % (100 * own / check) if check > 0 else "-"
    note = " (%d timed by the command)" % len(unreported) if unreported else ""
    print("  %-8s %9.0f %7d %11.2f %11.2f %10.0f %9s%s" % (
        name, wall * 1000, len(inside), check, sum(own_times), own * 1000, ratio, note))
