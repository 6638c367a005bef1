#!/bin/sh
# Remakes the testbed: twelve graphs written by `stagecut gen` with fixed
# seeds, each file named after its graph.  Usage:
#
#   samples/testbed/make.sh [DIR]    write into DIR (default: this directory)
#
# The program is $STAGECUT, else the build beside the sources (../../stagecut),
# else `stagecut` on the PATH.  The same program writes the same files: a test
# (tests/cli/test_gen.c) remakes them into a temporary directory and
# compares them with the ones in this directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
if [ -n "${STAGECUT:-}" ]; then
	prog=$STAGECUT
elif [ -x "$here/../../stagecut" ]; then
	prog=$here/../../stagecut
else
	prog=stagecut
fi
mkdir -p "$out"

# gen NAME ARGS...: writes the graph NAME (which ARGS must produce) to NAME.dot
gen() {
	name=$1
	shift
	"$prog" gen "$@" -o "$out/$name.dot"
}

# REGAL-style random graphs (paper 000, App. C.2), 50 to 200 ops
gen regal-er-50-1 --model er --nodes 50 --seed 1
gen regal-ba-100-2 --model ba --nodes 100 --seed 2
gen regal-ws-150-3 --model ws --nodes 150 --seed 3
gen regal-er-200-4 --model er --nodes 200 --seed 4

# transformers of 2 to 24 layers (14 L + 2 ops; 24 layers is BERT-large's shape)
gen transformer-2-1 --model transformer --layers 2 --seed 1
gen transformer-6-2 --model transformer --layers 6 --seed 2
gen transformer-12-3 --model transformer --layers 12 --seed 3
gen transformer-24-4 --model transformer --layers 24 --seed 4

# resnets of depth 26 to 152 (10 B + 14 ops for B = (depth - 2) / 3 blocks)
gen resnet-26-1 --model resnet --layers 26 --seed 1
gen resnet-50-2 --model resnet --layers 50 --seed 2
gen resnet-101-3 --model resnet --layers 101 --seed 3
gen resnet-152-4 --model resnet --layers 152 --seed 4
