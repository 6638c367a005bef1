#!/bin/sh
# perf/compare.sh [BASE] [PAIRS] - this tree's solvers against another
# revision's, pair by pair on the same inputs.
#
# BASE (default: origin/main when it exists, else HEAD~1; the closing note
# of a stop that touches a solver names the last landed tree) is built in a
# scratch worktree under ${TMPDIR:-/tmp} (kept, and reused while BASE
# names the same commit).  Then for each row (a graph, k and a method) the
# two binaries run one after the other PAIRS times (default 5), which one
# goes first alternating, so that both see the same load; the figures are
# the medians of the pairs' CPU times (user + sys of the whole command, as
# /usr/bin/time reports them) and of the search's own seconds (solve
# --json "seconds", loading not counted), the ratio this / base, the
# evaluations of each (a count, the same on every run) and whether the
# bottlenecks agree.  A ratio above 1 is this tree slower.
#
# Rows: the msr-fiddle graphs of samples/ at the k >= 4 of REFERENCE.tsv with the
# exact DP (balancing included, as `solve -m exact` runs it), with one CPU
# stage at the accelerators of REFERENCE-CPU.tsv (when BASE has CPU
# stages: a base without them fails those rows, shown as '?'), and the InceptionV3-like generated
# graph (`stagecut gen --model inception`) at k = 4, 6, 8.  More rows come
# from a TSV file named by STAGECUT_COMPARE_ROWS (graph, k, then the extra
# options of solve, tab separated; e.g. the held-out msr-fiddle graphs).
#
#   perf/compare.sh 17c97a6 5
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
base=${1:-}
pairs=${2:-5}
if [ -z "$base" ]; then
	if git rev-parse -q --verify origin/main >/dev/null; then base=origin/main; else base=HEAD~1; fi
fi
sha=$(git rev-parse --verify "$base^{commit}")
short=$(git rev-parse --short "$sha")
scratch=${TMPDIR:-/tmp}/stagecut-base-$short
if [ ! -x "$scratch/stagecut" ]; then
	echo "building $base ($short) in $scratch" >&2
	rm -rf "$scratch"
	git worktree prune
	git worktree add --detach "$scratch" "$sha" >/dev/null
	make -C "$scratch" --no-print-directory -j2 stagecut >"$scratch.log" 2>&1 ||
		{ echo "compare.sh: building $base failed; see $scratch.log" >&2; exit 2; }
fi
make --no-print-directory stagecut >/dev/null
old="$scratch/stagecut"
new="$root/stagecut"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

rows="$tmp/rows"
awk -F'\t' 'NR > 1 && $2 >= 4 { print "samples/msr-fiddle/" $1 "\t" $2 "\t-m exact" }' \
	samples/msr-fiddle/REFERENCE.tsv >"$rows"
awk -F'\t' 'NR > 1 && $3 == 1 { print "samples/msr-fiddle/" $1 "\t" $2 "\t-m exact --cpus 1" }' \
	samples/msr-fiddle/REFERENCE-CPU.tsv 2>/dev/null | sort -u >>"$rows" || true
"$new" gen --model inception -s 1 -o "$tmp/inception.dot" >/dev/null
for k in 4 6 8; do printf '%s\t%s\t-m exact\n' "$tmp/inception.dot" "$k" >>"$rows"; done
[ -n "${STAGECUT_COMPARE_ROWS:-}" ] && grep -v '^#' "$STAGECUT_COMPARE_ROWS" >>"$rows"

# one run: "cpu seconds search-seconds evaluations bottleneck"
run() {
	bin=$1 graph=$2 k=$3
	shift 3
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$bin" solve "$graph" -k "$k" "$@" --json -t 600 \
		>"$tmp/j" 2>/dev/null || true
	awk '{ printf "%.4f ", $1 + $2 }' "$tmp/t"
	tr -d ' ,' <"$tmp/j" | awk -F: '
		$1 == "\"seconds\"" && !s { s = $2 }
		$1 == "\"evaluations\"" && !e { e = $2 }
		$1 == "\"bottleneck\"" && !b { b = $2 }
		END { printf "%s %s %s\n", s == "" ? "?" : s, e == "" ? "?" : e, b == "" ? "?" : b }'
}
med() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "this tree against $base ($short): median of $pairs pairs, CPU seconds of the whole command"
echo "(and of the search alone), ratio this / base; evaluations; bottlenecks agree"
printf '%-44s %3s %-8s %8s %8s %6s %8s %8s %6s %9s %9s %s\n' graph k options base this ratio \
	base-s this-s ratio base-ev this-ev same
worst=0
while IFS="$(printf '\t')" read -r graph k opts; do
	[ -n "$graph" ] || continue
	: >"$tmp/o"
	: >"$tmp/n"
	i=0
	while [ $i -lt "$pairs" ]; do
		# shellcheck disable=SC2086
		if [ $((i % 2)) -eq 0 ]; then
			run "$old" "$graph" "$k" $opts >>"$tmp/o"
			run "$new" "$graph" "$k" $opts >>"$tmp/n"
		else
			run "$new" "$graph" "$k" $opts >>"$tmp/n"
			run "$old" "$graph" "$k" $opts >>"$tmp/o"
		fi
		i=$((i + 1))
	done
	oc=$(cut -d' ' -f1 "$tmp/o" | med)
	nc=$(cut -d' ' -f1 "$tmp/n" | med)
	os=$(cut -d' ' -f2 "$tmp/o" | med)
	ns=$(cut -d' ' -f2 "$tmp/n" | med)
	oe=$(head -1 "$tmp/o" | cut -d' ' -f3)
	ne=$(head -1 "$tmp/n" | cut -d' ' -f3)
	ob=$(head -1 "$tmp/o" | cut -d' ' -f4)
	nb=$(head -1 "$tmp/n" | cut -d' ' -f4)
	# (a base without the row's options, e.g. --cpus before CPU stages: n/a)
	same=$(awk -v a="$ob" -v b="$nb" 'BEGIN { if (a == "?" || b == "?") { print "n/a"; exit }
		d = a - b; if (d < 0) d = -d;
		print (a == b || d <= 1e-9 * (a < 0 ? -a : a)) ? "yes" : "NO" }')
	printf '%-44s %3s %-8s %8.2f %8.2f %6.2f %8.5f %8.5f %6.2f %9s %9s %s\n' \
		"$(echo "$graph" | sed 's|^samples/msr-fiddle/||; s|^/tmp/[^/]*/||')" "$k" \
		"$(echo "$opts" | sed 's/-m exact//; s/--cpus /cpu/; s/^ *//')" "$oc" "$nc" \
		"$(awk -v a="$nc" -v b="$oc" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$os" "$ns" \
		"$(awk -v a="$ns" -v b="$os" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$oe" "$ne" "$same"
	worst=$(awk -v w="$worst" -v a="$nc" -v b="$oc" 'BEGIN { r = b > 0 ? a / b : 0; print (r > w ? r : w) }')
done <"$rows"
echo "largest ratio of CPU time, this / base: $worst"
