#!/bin/sh
# make bench: the benchmarks quoted in the issues' closing notes.
set -eu
cd "$(dirname "$0")/.."
echo "== core: loading, whole evaluation and incremental moves on a 100 000-op graph"
build/bench-core 100000
echo
echo "== searches: exact vs the published DP, BRKGA speed, BRKGA quality"
build/bench-search
echo
echo "== the lower-bound ladder (000 Table 1): every sample graph, k = 2, 4, 8, 16, 60 s per rung"
build/bench-bounds 60
echo
echo "== the workbench: key press to redrawn screen on 100 000 ops (tmux)"
bench/bench_tui.sh 100000
echo
echo "== render: stage graph of 10 000 ops, every op of 2 000 and of resnet50"
bench/bench_render.sh
echo
echo "== testbed (000 Tables 1 and 2): samples/testbed, k = 2, 4, 8, 10 s per search and rung"
results=$(mktemp)
./stagecut bench samples/testbed -k 2,4,8 -t 10 -j 2 -o "$results"
rm -f "$results"
