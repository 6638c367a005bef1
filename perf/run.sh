#!/bin/sh
# make bench (or make perf): the benchmarks quoted in the issues' closing notes.
# perf/ holds the performance benchmarks (perf_*.c built as build/perf-*,
# and the timing scripts); `stagecut bench` is a different thing, the
# testbed command (tui/cmd/cmd_bench.c), run as the last part here.
set -eu
cd "$(dirname "$0")/.."
echo "== costs that match the device: the h100 model against op times measured on an H100"
echo "   (samples/h100/measured.json; regret = measured bottleneck of the model's optimum /"
echo "   the measured optimum; pred/meas = the model's bottleneck / the measured one)"
build/perf-cost
echo
echo "== the same for models the fit has not seen: each model under the fit to the ten others"
build/perf-cost --cross | tail -2
echo
echo "== stagecut calibrate on held-out models: each model (fp16 and fp32 runs apart) benched under"
echo "   the profile calibrated on the ten others' runs (perf/perf_calibrate.sh, ../shared/data/h100)"
if command -v jq >/dev/null; then perf/perf_calibrate.sh | grep -v '^  '; else echo "(no jq)"; fi
echo
echo "== core: loading, whole evaluation and incremental moves on a 100 000-op graph"
build/perf-core 100000
echo
echo "== the exact DP against the tree before: this tree / \${STAGECUT_BASE:-origin/main or HEAD~1},"
echo "   pair by pair (perf/compare.sh; STAGECUT_BASE=REV names another base)"
perf/compare.sh "${STAGECUT_BASE:-}" 5
echo
echo "== searches: SliceGraph evaluations (10 000 and 100 000 ops), exact vs the published DP, BRKGA speed, BRKGA quality"
build/perf-search
echo
echo "== CPU stages (001 section 3): the exact DP with 1 and 2 CPUs against the published program"
echo "   (samples/msr-fiddle/REFERENCE-CPU.tsv; median of 3, loading not timed), then brkga-1000"
echo "   + refine with CPU stages on the same rows (its gap to the published optimum), then the ladder"
echo "   with CPU stages on the same rows (10 s per MIP rung, each rung / the optimum)"
build/perf-cpus
echo
echo "== the lower-bound ladder (000 Table 1): every sample graph, k = 2, 4, 8, 16, 60 s per rung"
build/perf-bounds 60
echo
echo "== the workbench: key press to redrawn screen on 100 000 ops (tmux)"
perf/perf_tui.sh 100000
echo
echo "== the workbench idle (tmux, strace): its poll calls in 10 s, none when nothing runs"
if command -v strace >/dev/null; then perf/perf_idle.sh ./stagecut 10; else echo "(no strace)"; fi
echo
echo "== render: stage graph of 10 000 ops, every op of 2 000 and of resnet50"
perf/perf_render.sh
echo
echo "== memory: peak resident memory of every command on 100 000 ops, against 10 KiB per op"
perf/perf_memory.sh 100000
echo
echo "== time limits: how far past -t solve and bounds end on 100 000 ops (median of 3)"
perf/perf_deadline.sh 100000 3
echo
echo "== wide graphs: encoder-decoder transformers (3 + 3 .. 12 + 12 layers, k = 2 .. 8) and a random"
echo "   30-op DAG of 397 200 ideals (k = 2, 4, 8, with and without a tight memory limit): the CPU"
echo "   time of solve at -t 60, proven or not, and the gap to its lower bound (the goal: proven in 10 s)"
perf/perf_wide.sh 60
echo
echo "== ONNX: import time and peak memory of the largest samples/onnx model, and a solve on it"
perf/perf_onnx.sh
echo
echo "== training memory: the stash per stage (DESIGN.md section 1) against the bytes PyTorch's autograd saves"
echo "   (scripts/measure_saved.py, perf/stash.sh: resnet18, mobilenet_v2, a transformer encoder, a small GPT)"
perf/stash.sh
echo
echo "== testbed (000 Tables 1 and 2): samples/testbed, k = 2, 4, 8, 16, 10 s per instance"
echo "   (the testbed's goal is at -t 60 and -j 1: STAGECUT_BENCH_T=60 STAGECUT_BENCH_J=1 make bench)"
results=$(mktemp)
./stagecut bench samples/testbed -k 2,4,8,16 -t "${STAGECUT_BENCH_T:-10}" -j "${STAGECUT_BENCH_J:-2}" \
	-o "$results"
rm -f "$results"
