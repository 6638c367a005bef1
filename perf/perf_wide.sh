#!/bin/sh
# perf/perf_wide.sh [SECONDS [SOLVE OPTIONS...]] - proofs on wide graphs:
# how long `solve` (its default method, or as the options say, e.g.
# `-m exact` for the exact DP alone) takes to prove the optimum, or how
# far it got.
#
# Rows: encoder-decoder transformers (torch.nn.Transformer, 3 + 3, 6 + 6
# and 12 + 12 layers, dynamic source and target lengths; every decoder layer
# reads the encoder's output, which makes the graph wide), exported by
# perf/make_encdec.py when Debian's python3-torch and python3-onnx are
# there (else skipped), at k = 2 .. 8; and a random 30-op DAG of 397 200
# ideals (perf/make_wide_random.py 30 32 1) at k = 2, 4, 8, without a
# memory limit and under a tight hard one (1.2 x its parameters / k per
# stage).  Each row runs once with -t SECONDS (default 60): the wall and CPU time,
# whether the result is proven optimal, the bottleneck and its gap to the
# lower bound solve reports.  Nothing here is part of make test.
set -eu
cd "$(dirname "$0")/.."
limit=${1:-60}
[ $# -gt 0 ] && shift
extra="$*" # every row's further solve options
make --no-print-directory stagecut >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
row() { # row FILE K [OPTIONS...]
	f=$1
	k=$2
	shift 2
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S %e' -o "$tmp/t" ./stagecut solve "$f" -k "$k" -t "$limit" --json \
		$extra "$@" >"$tmp/o.json" 2>/dev/null || true
	awk -v name="$(basename "$f")" -v k="$k" -v opts="$extra $*" '
		FILENAME == ARGV[1] { cpu = $1 + $2; wall = $3; next }
		/"bottleneck":/ && !b { gsub(/[ ,]/, ""); split($0, a, ":"); b = a[2] }
		/"optimal":/ && !o { gsub(/[ ,]/, ""); split($0, a, ":"); o = a[2] }
		/"lower_bound":/ && !l { gsub(/[ ,]/, ""); split($0, a, ":"); l = a[2] }
		END {
			gap = (l != "" && l != "null" && l > 0) ? sprintf("%.4f%%", 100 * (b - l) / l) : "-"
			printf "%-18s %2s %-34s %7.2f %7.2f %-6s %14.6g %9s\n", name, k, opts, wall, cpu, o, b, gap
		}' "$tmp/t" "$tmp/o.json"
}
printf '%-18s %2s %-34s %7s %7s %-6s %14s %9s\n' graph k options wall_s cpu_s proven bottleneck gap
if /usr/bin/python3 -c 'import torch, onnx' 2>/dev/null; then
	/usr/bin/python3 perf/make_encdec.py "$tmp" 3 6 12 >/dev/null 2>&1 || true
fi
for n in 3 6 12; do
	f=$tmp/encdec-$n.onnx
	[ -f "$f" ] || { echo "encdec-$n: no torch/onnx (Debian's python3-torch, python3-onnx): skipped"; continue; }
	for k in 2 3 4 5 6 7 8; do row "$f" "$k"; done
done
python3 perf/make_wide_random.py 30 32 1 "$tmp/wide30.dot"
param=$(./stagecut info "$tmp/wide30.dot" | awk '/^total param/ { print $3 }')
for k in 2 4 8; do
	row "$tmp/wide30.dot" "$k"
	row "$tmp/wide30.dot" "$k" -M "$(awk -v p="$param" -v k="$k" 'BEGIN { print 1.2 * p / k }')" \
		--memory-policy hard
done
