#!/bin/sh
# scripts/golden.sh: a record of what every command prints, for refactors
# that must not change behaviour.
#
#   scripts/golden.sh record DIR     run every case, write DIR/<case>.out
#   scripts/golden.sh compare DIR    run them again and diff against DIR
#
# Cases: info, eval, solve (several methods, budgets by evaluations so the
# results are deterministic), bounds (simple rung on every graph, the whole
# ladder on the small ones), render (dot and svg text), gen, bench, the
# bad-input corpus (tests/bad/MANIFEST) and every command's --help, on every
# sample and every msr-fiddle graph in ../shared/data (when present).  Each
# .out holds the command line, its stdout, its stderr and its exit status;
# seconds, rates and temporary paths are masked.  STAGECUT names the
# program (default ./stagecut).  Two cases run at a time.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-}
out=${2:-}
if [ -z "$mode" ] || [ -z "$out" ] || { [ "$mode" != record ] && [ "$mode" != compare ]; }; then
	echo "usage: scripts/golden.sh record|compare DIR" >&2
	exit 2
fi
P=${STAGECUT:-./stagecut}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$mode" = compare ]; then
	[ -d "$out" ] || { echo "golden: $out: no such record" >&2; exit 2; }
	dest=$work/now
else
	dest=$out
fi
mkdir -p "$dest"

graphs=$(find samples -name '*.dot' -o -name '*.json' | sort)
if [ -d ../shared/data/msr-fiddle ]; then
	graphs="$graphs $(find ../shared/data/msr-fiddle -name '*.json' | sort)"
fi
small="samples/paper/figure2.dot samples/paper/lemma_b2.dot samples/small/residual.dot
       samples/msr-fiddle/layer/bert24_inference.json"

# case NAME COMMAND...: one line of the case list (W is the scratch dir)
cases=$work/cases
: >"$cases"
case_() {
	name=$1
	shift
	printf '%s\t%s\n' "$name" "$*" >>"$cases"
}
# (exact with --ideal-limit: without it a wide graph, regal-er-50-1 at k 2,
# fills the DP's memory budget for hours, where the refusal is immediate)
for g in $graphs; do
	id=$(echo "$g" | sed 's|^\.\./shared/data/|data/|; s|[/.]|_|g')
	case_ "$id.info" "{P} info $g"
	case_ "$id.info-json" "{P} info $g --json"
	case_ "$id.solve-kahn" "{P} solve $g -k 4 -m kahn -o {W}/$id.kahn.json && {P} eval $g {W}/$id.kahn.json && {P} eval $g {W}/$id.kahn.json --json"
	case_ "$id.solve-brkga" "{P} solve $g -k 3 -m brkga -e 300 --json"
	case_ "$id.solve-dpl" "{P} solve $g -k 8 -m dpl -s 4"
	case_ "$id.solve-exact" "{P} solve $g -k 2 -m exact --ideal-limit 1000000"
	case_ "$id.solve-refine" "{P} solve $g -k 4 -m refine"
	case_ "$id.bounds-simple" "{P} bounds $g -k 4 -m kahn --rungs simple --json"
	case_ "$id.render-dot" "{P} render $g -k 3 -m slice -o {W}/$id.q.dot && cat {W}/$id.q.dot"
	case_ "$id.render-full" "{P} render $g -k 2 -m kahn --full --max-ops 300 -o {W}/$id.f.svg && cat {W}/$id.f.svg"
done
for g in $small; do
	id=$(echo "$g" | sed 's|[/.]|_|g')
	case_ "$id.render-graph" "{P} render $g -o {W}/$id.g.dot && cat {W}/$id.g.dot"
	case_ "$id.bounds" "{P} bounds $g -k 3 --time 60"
	case_ "$id.bounds-json" "{P} bounds $g -k 2 --time 60 --json"
	case_ "$id.solve-best" "{P} solve $g -k 3 --json"
	case_ "$id.solve-mla" "{P} solve $g -k 4 -m mla -e 400"
	case_ "$id.solve-mlaw" "{P} solve $g -k 4 -m mla-weighted -e 400"
	case_ "$id.solve-random" "{P} solve $g -k 5 -m random -e 50 --no-refine"
	case_ "$id.bounds-part" "{P} solve $g -k 3 -m kahn -o {W}/$id.p.json && {P} bounds $g -k 3 --partition {W}/$id.p.json --rungs simple,bottleneck"
	case_ "$id.render-bounds" "{P} bounds $g -k 3 --json > {W}/$id.b.json && {P} render $g -k 3 --bounds {W}/$id.b.json -o {W}/$id.bq.dot && cat {W}/$id.bq.dot"
done
for s in 1 2 3; do
	case_ "gen.er.$s" "{P} gen -n 40 --model er -s $s"
	case_ "gen.any.$s" "{P} gen -n 70 -s $s"
	case_ "gen.transformer.$s" "{P} gen --model transformer --layers 2 -s $s"
	case_ "gen.resnet.$s" "{P} gen --model resnet -n 60 -s $s"
done
case_ bench.small "{P} bench samples/paper samples/small -k 2,3 -t 20 --methods kahn,slice,brkga-100,dpl -o {W}/bench.jsonl && {P} bench --merge {W}/bench.jsonl"
for c in "" info eval solve bounds render bench gen; do
	case_ "help.${c:-main}" "{P} $c --help"
done
case_ version "{P} --version"
n=0
grep -v '^#' tests/bad/MANIFEST | grep '{P}' | cut -f1 | while IFS= read -r line; do
	n=$((n + 1))
	case_ "bad.$(printf %03d $n)" "$line"
done

# run each case; mask what changes from run to run
run_case() {
	name=$1
	cmd=$(printf '%s' "$2" | sed "s|{P}|$P|g; s|{W}|$work|g")
	{
		printf '$ %s\n' "$2"
		sh -c "$cmd" >"$work/$name.stdout" 2>"$work/$name.stderr" && st=0 || st=$?
		cat "$work/$name.stdout"
		echo "--- stderr"
		cat "$work/$name.stderr"
		echo "--- exit $st"
	} | sed -E "s|$work|W|g;
		s/[0-9]+\.[0-9]+( ?)(s|seconds)\b/T\1\2/g;
		s/\"(seconds|search_seconds|elapsed)\": ?[-0-9.e+]+/\"\1\": T/g;
		s/[0-9.]+ evals\/s/R evals\/s/g;
		/^  method |^  rung   /s/[0-9]+\.[0-9]+$/T/;
		/^  (simple|bottleneck|guess|exact) /s/[0-9]+\.[0-9]+$/T/" >"$dest/$name.out"
	rm -f "$work/$name.stdout" "$work/$name.stderr"
}
export P work dest
total=$(wc -l <"$cases")
while IFS="$(printf '\t')" read -r name cmd; do
	printf '%s\0%s\0' "$name" "$cmd"
done <"$cases" | xargs -0 -n 2 -P 2 sh -c "$(sed -n '/^run_case() {/,/^}/p' "$0")"'
run_case "$1" "$2"' _
echo "golden: $total cases run" >&2
if [ "$mode" = compare ]; then
	if diff -r "$out" "$dest" >"$work/diff"; then
		echo "golden: all $total cases match $out" >&2
	else
		cat "$work/diff"
		echo "golden: $(grep -c '^diff -r' "$work/diff" || true) cases differ from $out;" \
			"missing or new: $(grep -c '^Only in' "$work/diff" || true)" >&2
		exit 1
	fi
fi
