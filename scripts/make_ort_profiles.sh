#!/bin/sh
# make_ort_profiles.sh - remake tests/data/ort/: small models exported by
# torch (scripts/make_ort_models.py) and real ONNX Runtime profiles of them
# at every graph optimization level (disabled, basic, extended, all), made
# by onnxruntime-node on the CPU (scripts/make_ort_profiles.js).
#
# Run by hand from the top of the tree, NOT by the build or the tests:
#
#     apt-get install -y --no-install-recommends \
#         python3-torch python3-torchvision python3-onnx nodejs npm
#     sh scripts/make_ort_profiles.sh [OUTDIR]
#
# onnxruntime-node is installed from the npm registry into a temporary
# directory that is removed afterwards (its install script, which fetches
# GPU libraries, is skipped: the CPU library ships in the package).  The
# times are whatever this machine measures; the tests check how the profiles
# map onto the models, never the times themselves.
set -eu
out=${1:-tests/data/ort}
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$out"
/usr/bin/python3 scripts/make_ort_models.py "$out"
(cd "$tmp" && npm init -y >/dev/null && npm install --ignore-scripts --no-audit \
	--no-fund onnxruntime-node >/dev/null)
cd "$out"
NODE_PATH="$tmp/node_modules" node "$top/scripts/make_ort_profiles.js" . \
	vit_tiny.onnx encoder_tiny.onnx resnet_tiny.onnx
