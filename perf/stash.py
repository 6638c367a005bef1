#!/usr/bin/python3
"""perf/stash.py STAGECUT DIR [measure_saved.py options] - stagecut's
activation memory (stash(S), DESIGN.md section 1, "Memory per stage")
against what PyTorch's autograd saves, stage by stage.

Runs scripts/measure_saved.py into DIR (the ONNX exports, the module-aligned
partition files and truth.json, the bytes torch saved per stage), then for
each model and k

    STAGECUT eval MODEL.onnx PART.json --training --precision fp32 --json

and reads stages[i].memory.stash_per_microbatch (bytes).  Prints a table:
model, k, stage, torch bytes, stagecut bytes, stagecut / torch; then each
model's total (k = 1, the whole model).  The goal: every stage within 10 %,
every total within 5 %.  Exits 0 whether or not the goal is met (it is a
benchmark), also when stagecut gives no memory object; 2 on a broken run
(measure_saved.py fails, stagecut fails or says a partition is invalid).
"""

import json
import os
import subprocess
import sys

STAGE_GOAL = 0.10
TOTAL_GOAL = 0.05
HERE = os.path.dirname(os.path.abspath(__file__))


def broken(msg):
    print("stash: broken run: " + msg, file=sys.stderr)
    sys.exit(2)


def stagecut_stash(stagecut, onnx_path, part_path):
    """The list of stash bytes per stage, or a string saying why stagecut
    gives none."""
    cmd = [stagecut, "eval", onnx_path, part_path, "--training", "--precision", "fp32", "--json"]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = run.stderr.strip()
    try:
        out = json.loads(run.stdout)
    except ValueError:
        if run.returncode == 2 and "--training" in err:
            return "stagecut eval does not take --training (%s)" % err
        broken("%s exited %d without JSON: %s" % (" ".join(cmd), run.returncode, err))
    if not out.get("valid", False):
        broken("%s: the partition is invalid: %s" % (" ".join(cmd), err))
    got = []
    for st in out.get("stages", []):
        mem = st.get("memory")
        if not isinstance(mem, dict) or "stash_per_microbatch" not in mem:
            return "no stages[i].memory.stash_per_microbatch in its JSON"
        got.append(float(mem["stash_per_microbatch"]))
    return got


def ratio(a, b):
    return a / b if b else (1.0 if a == 0 else float("inf"))


def main():
    if len(sys.argv) < 3:
        print("usage: perf/stash.py STAGECUT DIR [measure_saved.py options]", file=sys.stderr)
        sys.exit(2)
    stagecut, outdir = sys.argv[1], sys.argv[2]
    measure = os.path.join(HERE, "..", "scripts", "measure_saved.py")
    run = subprocess.run([sys.executable, measure, outdir, "--stagecut", stagecut] + sys.argv[3:])
    if run.returncode != 0:
        broken("scripts/measure_saved.py exited %d" % run.returncode)
    with open(os.path.join(outdir, "truth.json")) as f:
        truth = json.load(f)
    print("batch %d, %s; goal: each stage within %d %% of torch's bytes, each model's total "
          "within %d %%" % (truth["batch"], truth["dtype"], STAGE_GOAL * 100, TOTAL_GOAL * 100))
    print("%-20s %2s %5s %15s %15s %7s" % ("model", "k", "stage", "torch bytes", "stagecut bytes",
                                          "ratio"))
    missing = None
    stages_in = stages_all = 0
    totals = []
    for model, entry in truth["models"].items():
        onnx_path = os.path.join(outdir, entry["onnx"])
        for k, want in entry["stash"].items():
            got = stagecut_stash(stagecut, onnx_path, os.path.join(outdir, entry["partitions"][k]))
            if isinstance(got, str):
                missing = got
                got = [None] * len(want)
            elif len(got) != len(want):
                broken("%s k = %s: stagecut gives %d stages, the partition has %d" %
                       (model, k, len(got), len(want)))
            for s, (w, g) in enumerate(zip(want, got), 1):
                if g is None:
                    print("%-20s %2s %5d %15d %15s %7s" % (model, k, s, w, "-", "-"))
                    continue
                r = ratio(g, w)
                stages_all += 1
                stages_in += abs(r - 1) <= STAGE_GOAL
                print("%-20s %2s %5d %15d %15.0f %7.3f" % (model, k, s, w, g, r))
            if k == "1" and got[0] is not None:
                totals.append((model, want[0], got[0]))
    print()
    if missing:
        print("stagecut gives no memory object: %s" % missing)
        print("goal: not measured")
        return
    for model, w, g in totals:
        r = ratio(g, w)
        print("%-20s total: torch %d, stagecut %.0f, ratio %.3f %s" % (
            model, w, g, r, "(within 5 %)" if abs(r - 1) <= TOTAL_GOAL else "(goal missed)"))
    totals_in = sum(abs(ratio(g, w) - 1) <= TOTAL_GOAL for _, w, g in totals)
    met = stages_in == stages_all and totals_in == len(totals)
    print("stages within 10 %%: %d of %d; totals within 5 %%: %d of %d; goal %s" % (
        stages_in, stages_all, totals_in, len(totals), "met" if met else "missed"))


if __name__ == "__main__":
    main()
