#!/bin/sh
# perf_render.sh - `stagecut render` wall times, median of 5 runs each (3 for the 500-op picture):
# the stage graph of a generated 10 000-op graph (svg and png), every op of
# a 500-op and a 2 000-op generated graph, vit_b_16 (pages) and resnet50's 604 operators (--full),
# side by side in one run.  Partitions come from kahn so that no search
# time is counted.
set -eu
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
./stagecut gen -n 10000 -s 5 -o "$dir/g10k.dot"
./stagecut solve "$dir/g10k.dot" -k 8 -m kahn -o "$dir/g10k.json" >/dev/null
./stagecut gen -n 2000 -s 5 -o "$dir/g2k.dot"
./stagecut solve "$dir/g2k.dot" -k 8 -m kahn -o "$dir/g2k.json" >/dev/null
r50=samples/msr-fiddle/operator/resnet50_inference.json
./stagecut solve $r50 -k 8 -m kahn -o "$dir/r50.json" >/dev/null
./stagecut solve samples/onnx/vit_b_16.onnx --device h100 -k 4 -m kahn -o "$dir/vit.json" >/dev/null

# median wall seconds of 5 runs of the command
median() {
	runs=$1
	shift
	for i in $(seq 1 "$runs"); do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'
	done | sort -n | sed -n "$(((runs + 1) / 2))p"
}
printf '%-52s %8.3f s\n' "stage graph, 10 000 ops, k 8, svg" \
	"$(median 5 ./stagecut render "$dir/g10k.dot" "$dir/g10k.json" -o "$dir/q.svg")"
printf '%-52s %8.3f s\n' "stage graph, 10 000 ops, k 8, png" \
	"$(median 5 ./stagecut render "$dir/g10k.dot" "$dir/g10k.json" -o "$dir/q.png")"
printf '%-52s %8.3f s\n' "  of which loading and costing (eval --json)" \
	"$(median 5 ./stagecut eval "$dir/g10k.dot" "$dir/g10k.json" --json)"
./stagecut gen -n 500 -s 5 -o "$dir/g500.dot"
./stagecut solve "$dir/g500.dot" -k 8 -m kahn -o "$dir/g500.json" >/dev/null
printf '%-52s %8.3f s\n' "every op, 500 ops (REGAL-style), k 8, svg" \
	"$(median 3 ./stagecut render "$dir/g500.dot" "$dir/g500.json" --full -o "$dir/f.svg")"
# a dense 2 000-op graph goes on pages of 80 ops (one folded picture of it
# took dot many minutes)
printf '%-52s %8.3f s\n' "every op, 2 000 ops (REGAL-style), k 8, svg, pages" \
	"$(median 3 ./stagecut render "$dir/g2k.dot" "$dir/g2k.json" --full -o "$dir/p.svg")"
printf '%-52s %8.3f s\n' "every op, vit_b_16 (616 ops), k 4, png, 8 pages" \
	"$(median 3 ./stagecut render samples/onnx/vit_b_16.onnx "$dir/vit.json" --device h100 --full -o "$dir/v.png")"
printf '%-52s %8.3f s\n' "every op, resnet50 (604 operators), k 8, svg, 8 pages" \
	"$(median 5 ./stagecut render $r50 "$dir/r50.json" --full -o "$dir/r.svg")"
