#!/bin/sh
# perf/published.sh SRC [PAIRS] - stagecut solve (its default method, the
# exact DP where its ideals fit) against the published
# DP of paper 001 (msr-fiddle/dnn-partitioning, throughput-dp/dp.cpp),
# built from its public source and run side by side on the same inputs.
#
# SRC is a checkout of that repository, or its git directory (a snapshot
# without a work tree: the files are read with git show); nothing of it is
# copied into this repository.  It is built with g++ -O3 in a scratch
# directory.  Rows: every row of samples/msr-fiddle/REFERENCE.tsv and
# REFERENCE-CPU.tsv whose recorded published time is at least 1 s, plus the
# held-out graphs of SRC's throughput-inputs that samples/ does not carry
# (bert_l-12, gnmt, inceptionv3) at k = 4 and 8.  Each row runs PAIRS times
# (default 3) both programs, one after the other, the published one given
# the graph with maxFPGAs = k and maxCPUs = L; the figures are the medians
# of the CPU time (user + sys) of each whole command, loading included for
# both (a stagecut run under 0.2 s is timed as a batch of runs of about
# half a second, divided by their number: /usr/bin/time counts
# hundredths, too coarse for a ratio of 100 against a published run of a
# second), their ratio (published / stagecut) and whether the optima agree
# (to a relative 1e-5: the published program prints six digits).  It needs
# g++ (Debian's g++ package; not one of the build's dependencies).  The goal of paper-grade speed: a ratio of at least 100
# on every row where the published DP takes a second or more.
#
#   perf/published.sh /work/.mirror/msr-fiddle+dnn-partitioning/repo/.git 3
set -eu
cd "$(dirname "$0")/.."
src=${1:?usage: perf/published.sh SRC [PAIRS]}
pairs=${2:-3}
make --no-print-directory stagecut >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
get() { # get PATH DEST: a file of SRC
	if [ -f "$src/$1" ]; then cp "$src/$1" "$2"; else git --git-dir="$src" show "HEAD:$1" >"$2"; fi
}
mkdir -p "$tmp/throughput-dp" "$tmp/nlohmann"
get throughput-dp/dp.cpp "$tmp/throughput-dp/dp.cpp"
get nlohmann/json.hpp "$tmp/nlohmann/json.hpp"
g++ -O3 -std=c++17 -o "$tmp/dp" "$tmp/throughput-dp/dp.cpp" 2>"$tmp/build.log" ||
	{ echo "published.sh: building dp.cpp failed:" >&2; cat "$tmp/build.log" >&2; exit 2; }

rows=$tmp/rows # graph file, k, cpus
awk -F'\t' 'NR > 1 && $4 >= 1 { print "samples/msr-fiddle/" $1 "\t" $2 "\t0" }' \
	samples/msr-fiddle/REFERENCE.tsv >"$rows"
awk -F'\t' 'NR > 1 && $5 >= 1 { print "samples/msr-fiddle/" $1 "\t" $2 "\t" $3 }' \
	samples/msr-fiddle/REFERENCE-CPU.tsv >>"$rows"
for f in OperatorGraphs/bert_l-12_inference.json OperatorGraphs/bert_L-12_training.json \
	LayerGraphs/gnmt_inference.json LayerGraphs/gnmt_training.json \
	LayerGraphs/inceptionv3_inference.json LayerGraphs/inceptionv3_training.json; do
	out="$tmp/$(basename "$f")"
	get "throughput-inputs/$f" "$out" 2>/dev/null || continue
	for k in 4 8; do printf '%s\t%s\t0\n' "$out" "$k" >>"$rows"; done
done

cpu() { awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/t"; }
med() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-36s %3s %4s %10s %10s %8s %14s %s\n' graph k cpus published stagecut ratio optimum same
while IFS="$(printf '\t')" read -r graph k L; do
	sed "s/\"maxFPGAs\" *: *[0-9]*/\"maxFPGAs\": $k/; s/\"maxCPUs\" *: *[0-9]*/\"maxCPUs\": $L/" \
		"$graph" >"$tmp/in.json"
	: >"$tmp/p"
	: >"$tmp/s"
	i=0
	while [ $i -lt "$pairs" ]; do
		/usr/bin/time -f "%U %S" -o "$tmp/t" timeout 900 "$tmp/dp" <"$tmp/in.json" >"$tmp/out" 2>"$tmp/err" || true
		cpu >>"$tmp/p"
		opts=""
		[ "$L" -gt 0 ] && opts="--cpus $L"
		# shellcheck disable=SC2086
		/usr/bin/time -f '%U %S' -o "$tmp/t" ./stagecut solve "$graph" -k "$k" $opts \
			--json >"$tmp/j" 2>/dev/null || true
		runs=$(awk '{ t = $1 + $2; print t < 0.2 ? int(0.5 / (t > 0.005 ? t : 0.005)) + 1 : 1 }' "$tmp/t")
		if [ "$runs" -gt 1 ]; then
			# shellcheck disable=SC2086,SC2016
			/usr/bin/time -f '%U %S' -o "$tmp/t" sh -c \
				'i=0; while [ $i -lt "$0" ]; do "$@" >/dev/null 2>&1; i=$((i + 1)); done' \
				"$runs" ./stagecut solve "$graph" -k "$k" $opts --json || true
		fi
		awk -v n="$runs" '{ printf "%.5f\n", ($1 + $2) / n }' "$tmp/t" >>"$tmp/s"
		i=$((i + 1))
	done
	pub=$(sed -n 's/.*objective = \([0-9.eE+-]*\).*/\1/p' "$tmp/err" | tail -1)
	ours=$(tr -d ' ,' <"$tmp/j" | awk -F: '$1 == "\"bottleneck\"" { print $2; exit }')
	pm=$(med <"$tmp/p")
	sm=$(med <"$tmp/s")
	same=$(awk -v a="$pub" -v b="$ours" 'BEGIN { d = a - b; if (d < 0) d = -d;
		print (a != "" && b != "" && d <= 1e-5 * (a < 0 ? -a : a)) ? "yes" : "NO" }')
	# (a batch of runs under a hundredth in all is counted as none, the
	# ratio then marked '>')
	printf '%-36s %3s %4s %10.3f %10.4f %8s %14s %s\n' \
		"$(echo "$graph" | sed 's|^samples/msr-fiddle/||; s|^/tmp/[^/]*/|held-out/|')" "$k" "$L" \
		"$pm" "$sm" "$(awk -v a="$pm" -v b="$sm" 'BEGIN { printf "%s%.0f", (b > 0 ? "" : ">"), a / (b > 0 ? b : 0.01) }')" \
		"$ours" "$same"
done <"$rows"
