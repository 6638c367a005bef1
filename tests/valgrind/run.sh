#!/bin/sh
# make valgrind-test: the program under memcheck (tests/valgrind/stagecut)
# on every case of the bad-input corpus (tests/bad/MANIFEST) and on a round
# of good runs of each command.  A memory error or definite leak makes a run
# exit 99; each run must also end with its own status (not a signal).  Two
# runs at a time, the good runs (the longest, bench the longest of them)
# first so that none is left to run alone at the end; about a minute on 2
# cores.  VALGRIND_QUICK=1 (make test) takes every eighth corpus case only:
# the cli tests run the whole corpus without valgrind.
set -u
cd "$(dirname "$0")/../.."
# no valgrind, no test: fail, never pass by running nothing
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind-test: valgrind is not installed (make deps installs it)" >&2
	exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
VG=tests/valgrind/stagecut
{
	cat <<EOC
{P} bench samples/paper/figure2.dot samples/small/residual.dot -k 2,3 --methods dpl,brkga-100 --rungs simple,bottleneck -o $dir/b.jsonl
{P} info samples/msr-fiddle/operator/resnet50_inference.json --json
{P} eval samples/paper/figure2.dot $dir/fig2.json
{P} solve samples/paper/figure2.dot -k 3 -o $dir/fig2.json
{P} solve samples/small/residual.dot -k 4 -m brkga -e 500
{P} solve samples/msr-fiddle/layer/bert24_inference.json -k 4 -m exact --json
{P} bounds samples/paper/figure2.dot -k 3 --time 20
{P} bounds samples/small/residual.dot -k 3 --rungs simple,bottleneck --json
{P} render samples/paper/figure2.dot -o $dir/q.png
{P} render samples/paper/figure2.dot --full -o $dir/f.svg
{P} render samples/paper/figure2.dot -k 3 -m slice -o $dir/q.dot
{P} render samples/msr-fiddle/layer/bert24_inference.json -k 2 --full -o $dir/f.dot
{P} render samples/msr-fiddle/layer/bert24_inference.json -o $dir/g.pdf
{P} gen -n 60 -s 3 -o $dir/g.dot
{P} calibrate --device h100 -o $dir/c.profile samples/h100/onnx/resnet18.onnx,tests/data/h100/resnet18-N-1-fp16.csv,N=1 samples/h100/onnx/googlenet.onnx,tests/data/h100/googlenet-N-1-fp16.csv,N=1
EOC
	grep -v '^#' tests/bad/MANIFEST | grep '{P}' | cut -f1 |
		if [ "${VALGRIND_QUICK:-0}" = 1 ]; then awk 'NR % 8 == 1'; else cat; fi
} | sed "s|{P}|$VG|" >"$dir/cases"
# the eval case needs the partition the solve case writes: run that first
grep ' solve samples/paper/figure2.dot -k 3 -o' "$dir/cases" | sh >/dev/null 2>&1
n=$(wc -l <"$dir/cases")
# each case: run it; print a line when it failed memcheck or died of a signal
tr '\n' '\0' <"$dir/cases" | xargs -0 -P 2 -I{} sh -c '
	sh -c "$1" >/dev/null 2>"$2/err.$$"
	st=$?
	if [ $st -eq 99 ] || [ $st -ge 126 ]; then
		echo "FAILED (exit $st): $1"
		grep "==" "$2/err.$$" | head -40
	fi
	rm -f "$2/err.$$"' _ {} "$dir" >"$dir/report"
if [ -s "$dir/report" ]; then
	cat "$dir/report"
	echo "valgrind: $(grep -c '^FAILED' "$dir/report") of $n runs failed"
	exit 1
fi
echo "valgrind: $n runs, no memory errors and no definite leaks"
