#!/bin/sh
# perf/perf_calibrate.sh [MEASURED.json]: `stagecut calibrate` on models it
# has not seen.  Leave one model out: for each model of the measured-times
# file (default ../shared/data/h100/measured.json, else
# samples/h100/measured.json) and each dtype, a profile is calibrated from the
# h100 profile on the runs of the other models (fp16 runs at fp16, fp32 runs,
# which ran with TF32 allowed, at tf32), then build/perf-cost benches the
# held-out model's runs under it: regret = the measured bottleneck of the
# profile's optimum / the measured optimum, at k = 2, 4, 8 (the exact DP).
# The same runs under the built-in h100 profile (fitted on every model,
# the held-out one included) are printed beside it.  Then held-out batches:
# a profile calibrated on the batch-1 runs (N = 1, and the models of fixed
# shape) benched on the runs of larger batches, and one calibrated on the
# larger batches benched on batch 1.
set -eu
cd "$(dirname "$0")/.."
measured=${1:-../shared/data/h100/measured.json}
[ -r "$measured" ] || measured=samples/h100/measured.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scripts/h100_times_csv.sh "$measured" "$tmp/csv" > "$tmp/runs"
# the regrets of perf-cost's per-run lines: "k=2 REGRET RATIO k=4 ..."
regrets() { awk '/ k=2 /{for (i = 1; i <= NF; i++) if ($i ~ /^k=/) print $(i + 1)}'; }
summary() {
	sort -n | awk -v what="$1" '{v[NR] = $1} END {
		if (NR == 0) { print what ": no runs"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s (%d run-k pairs): regret median %.3f worst %.3f\n", what, NR, m, v[NR] }'
}
for dtype in fp16 fp32; do
	prec=$dtype
	[ "$dtype" = fp32 ] && prec=tf32
	: > "$tmp/held.$dtype"
	: > "$tmp/builtin.$dtype"
	for model in $(awk -v d="$dtype" '$2 == d {print $1}' "$tmp/runs" | sort -u); do
		train=$(awk -v d="$dtype" -v m="$model" '$2 == d && $1 != m {print $3}' "$tmp/runs")
		# shellcheck disable=SC2086
		./stagecut calibrate --device h100 --precision "$prec" -o "$tmp/held.profile" \
			$train > /dev/null
		jq --arg m "$model" --arg d "$dtype" \
			'{runs: [.runs[] | select(.model == $m and .dtype == $d)]}' \
			"$measured" > "$tmp/one.json"
		build/perf-cost --device "$tmp/held.profile" "$tmp/one.json" > "$tmp/out"
		build/perf-cost --device h100 "$tmp/one.json" > "$tmp/out.builtin"
		grep ' k=2 ' "$tmp/out" | sed "s/^/  calibrated on the others: /" | cut -c1-140
		regrets < "$tmp/out" >> "$tmp/held.$dtype"
		regrets < "$tmp/out.builtin" >> "$tmp/builtin.$dtype"
	done
	summary "$prec held out, calibrated on the other models" < "$tmp/held.$dtype"
	summary "$prec the built-in h100 (fitted on all models)" < "$tmp/builtin.$dtype"
done
# held-out batches: train on one side of N = 1, bench the runs with dims on the other
bench_batches() { # $1: "small" fits on N = 1 and benches N > 1; "large" the other way
	for dtype in fp16 fp32; do
		prec=$dtype
		[ "$dtype" = fp32 ] && prec=tf32
		if [ "$1" = small ]; then
			train=$(awk -v d="$dtype" '$2 == d && $3 !~ /,N=[0-9]+$/ || $2 == d && $3 ~ /,N=1$/ {print $3}' "$tmp/runs")
			sel='.dims.N != null and .dims.N != 1'
		else
			train=$(awk -v d="$dtype" '$2 == d && $3 ~ /,N=[0-9]+$/ && $3 !~ /,N=1$/ {print $3}' "$tmp/runs")
			sel='.dims.N == 1'
		fi
		# shellcheck disable=SC2086
		./stagecut calibrate --device h100 --precision "$prec" -o "$tmp/held.profile" \
			$train > /dev/null
		jq --arg d "$dtype" "{runs: [.runs[] | select(.dtype == \$d and $sel)]}" \
			"$measured" > "$tmp/batch.json"
		build/perf-cost --device "$tmp/held.profile" "$tmp/batch.json" | regrets |
			summary "$prec $2"
		build/perf-cost --device h100 "$tmp/batch.json" | regrets |
			summary "$prec $2, the built-in h100"
	done
}
bench_batches small "batch > 1 held out, calibrated on batch 1"
bench_batches large "batch 1 held out, calibrated on batches > 1"
