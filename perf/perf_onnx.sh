#!/bin/sh
# perf/perf_onnx.sh - import time and peak memory (GNU time's maximum RSS) of
# the largest model under samples/onnx/, and an end-to-end solve on it at
# k = 4 on the default device.  Skipped when samples/onnx/ holds no model.
set -eu
cd "$(dirname "$0")/.."
largest=$(ls -S samples/onnx/*.onnx 2>/dev/null | head -n 1 || true)
if [ -z "$largest" ]; then
	echo "no samples/onnx/*.onnx: skipped"
	exit 0
fi
bytes=$(wc -c <"$largest")
echo "model: $largest ($bytes bytes)"
for what in info solve; do
	if [ "$what" = info ]; then args="info $largest"; else args="solve $largest -k 4 -t 10"; fi
	/usr/bin/time -f "$what: %e s wall, %M KB peak RSS" ./stagecut $args >/dev/null 2>/tmp/perf_onnx.$$ ||
		{ cat /tmp/perf_onnx.$$ >&2; rm -f /tmp/perf_onnx.$$; exit 1; }
	grep -v '^stagecut: warning' /tmp/perf_onnx.$$ || true
	rm -f /tmp/perf_onnx.$$
done
