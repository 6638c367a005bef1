#!/bin/sh
# perf/stash.sh [STAGECUT] - stagecut's activation memory against the bytes
# PyTorch's autograd saves, per stage of module-aligned partitions of
# resnet18, mobilenet_v2, an nn.TransformerEncoder and a small GPT at batch 8,
# fp32 (perf/stash.py; what is measured: scripts/measure_saved.py).  The
# exports and partitions are made in a scratch directory and removed
# (STASH_KEEP=DIR keeps them there).  Skipped when Debian's python3 has no
# torch, torchvision or onnx (make bench installs them: scripts/deps.sh
# bench).  Exit status 0 whether or not the goal is met, 2 on a broken run.
set -eu
cd "$(dirname "$0")/.."
stagecut=${1:-./stagecut}
py=/usr/bin/python3
if ! "$py" -c 'import torch, torchvision, onnx' 2>/dev/null; then
	echo "no torch, torchvision or onnx for $py: skipped (scripts/deps.sh bench installs them)"
	exit 0
fi
if [ -n "${STASH_KEEP:-}" ]; then
	dir=$STASH_KEEP
	mkdir -p "$dir"
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
"$py" perf/stash.py "$(realpath "$stagecut")" "$dir" || exit 2
