#!/bin/sh
# perf_idle.sh [PROGRAM [SECONDS]] - how often an idle workbench wakes up:
# the workbench on samples/paper/figure2.dot in tmux, left until its search
# and ladder have ended and the status line's message has expired (no job
# runs, nothing is due), then strace counts its poll and ppoll calls for
# SECONDS (default 10) and the wake-ups per second are printed.  PROGRAM
# (default ./stagecut) lets two builds be compared.  Needs strace and a
# kernel that lets a process trace its own children's children
# (kernel.yama.ptrace_scope 0).
set -eu
cd "$(dirname "$0")/.."
prog=${1:-./stagecut}
secs=${2:-10}
dir=$(mktemp -d)
session=scidle-$$
trap 'tmux kill-session -t $session 2>/dev/null || true; rm -rf "$dir"' EXIT
tmux new-session -d -s "$session" -x 100 -y 30 \
	"env TERM=xterm-256color XDG_STATE_HOME=$dir sh -c 'echo \$\$ > $dir/pid; exec $prog samples/paper/figure2.dot'; sleep 30"
# idle: the title's last word; then the start-up's messages expire (8 s)
for i in $(seq 1 300); do
	tmux capture-pane -p -t "$session" | head -n 1 | grep -q 'idle *$' && break
	sleep 0.1
done
sleep 9
pid=$(cat "$dir/pid")
strace -c -f -e trace=poll,ppoll -o "$dir/strace" -p "$pid" &
tracer=$!
sleep "$secs"
kill -INT "$tracer"
wait "$tracer" || true
calls=$(awk '$NF == "poll" || $NF == "ppoll" { n += $4 } END { print n + 0 }' "$dir/strace")
echo "idle workbench: $calls poll and ppoll calls in $secs s, $(echo "$calls $secs" | awk '{ printf "%.1f", $1 / $2 }') per second"
