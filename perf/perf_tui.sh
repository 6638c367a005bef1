#!/bin/sh
# perf_tui.sh - the workbench's key press to redrawn screen time on a
# generated graph of 100 000 ops, driven in tmux as a person would: moves in
# the node browser (each re-costed incrementally), undo, redo, scrolling and
# view switches, while the default search runs in the background.  The
# program itself records each key's time (STAGECUT_KEY_TIMES), from reading
# the key to the end of the redraw.  STAGECUT names the program (default
# ./stagecut), so that two builds can be compared.
set -eu
cd "$(dirname "$0")/.."
n=${1:-100000}
prog=${STAGECUT:-./stagecut}
dir=$(mktemp -d)
trap 'tmux kill-session -t scperf 2>/dev/null || true; rm -rf "$dir"' EXIT
"$prog" gen -n "$n" -s 7 -k 8 -o "$dir/big.dot"
tmux new-session -d -s scperf -x 120 -y 40 \
	"env TERM=xterm-256color XDG_STATE_HOME=$dir STAGECUT_KEY_TIMES=$dir/times $prog $dir/big.dot; sleep 30"
# wait for the first screen
for i in $(seq 1 200); do
	tmux capture-pane -p -t scperf | grep -q "ladder of lower bounds" && break
	sleep 0.1
done
: > "$dir/times"
tmux send-keys -t scperf 2
sleep 0.3
for round in $(seq 1 25); do
	for key in j '>' j '<' u U ']' u G g S S S 1 2; do
		tmux send-keys -t scperf "$key"
		sleep 0.05
	done
done
sleep 0.5
tmux send-keys -t scperf x
sleep 0.3
tmux send-keys -t scperf q
sleep 0.3
tmux send-keys -t scperf q Enter
sleep 0.3
# each line: milliseconds, the key's code, milliseconds to handle it; q opens
# a prompt that waits for the answer, so it is left out
awk '$2 != 113' "$dir/times" | sort -n | awk '{ t[NR] = $1 } END {
	if (NR == 0) { print "no key times recorded"; exit 1 }
	printf "workbench on %d ops: %d key presses, key to redrawn screen median %.2f ms, 95th percentile %.2f ms, max %.2f ms\n",
		'"$n"', NR, t[int((NR + 1) / 2)], t[int(NR * 0.95 + 0.5)], t[NR] }'
