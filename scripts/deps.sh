#!/bin/sh
# Installs the Debian packages stagecut needs to build, test and run, when
# they are missing.  Uses sudo when not root.  Quiet when all are present.
# `scripts/deps.sh bench` adds what make bench needs beyond the tests: torch,
# torchvision and onnx for Debian's python3 (perf/stash.sh).
set -eu
pkgs="gcc make pkg-config libncurses-dev libgraphviz-dev graphviz coinor-libcbc-dev
      libjansson-dev libcriterion-dev tmux clang-format libprotobuf-c-dev
      protobuf-c-compiler libonnx-dev libcairo2-dev valgrind lcov time"
if [ "${1:-}" = bench ]; then
	pkgs="$pkgs python3-torch python3-torchvision python3-onnx"
fi
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
echo "stagecut: installing missing packages:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# a fresh machine may have no package lists yet; update only when needed
if ! $sudo apt-get install -y --no-install-recommends $missing; then
	$sudo apt-get update
	$sudo apt-get install -y --no-install-recommends $missing
fi
