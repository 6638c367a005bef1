#!/bin/sh
# scripts/h100_times_csv.sh MEASURED.json OUTDIR: each run of a measured-times
# file (samples/h100/README.md: model, dims, dtype, each ONNX node's time) as a
# CSV of name,microseconds that --times and `stagecut calibrate` read, one
# file per run in OUTDIR.  An op's time is graph_us where measured, else
# eager_us; Constant, Shape and ConstantOfShape count 0 (a runtime folds them,
# as the data's README says).  Prints one line per run on stdout:
#   MODEL DTYPE RUN
# with RUN the calibrate argument MODEL.onnx,CSV[,DIM=VALUE...]; the model is
# looked for beside MEASURED.json (its onnx/ folder, then its own), then in
# samples/h100/onnx/ and samples/onnx/.  Needs jq.
set -eu
measured=$1 out=$2
dir=$(dirname "$measured")
mkdir -p "$out"
n=$(jq '.runs | length' "$measured")
i=0
while [ "$i" -lt "$n" ]; do
	model=$(jq -r ".runs[$i].model" "$measured")
	dtype=$(jq -r ".runs[$i].dtype" "$measured")
	dims=$(jq -r ".runs[$i].dims | to_entries | map(\"\(.key)=\(.value)\") | join(\",\")" \
		"$measured")
	path=
	for p in "$dir/onnx/$model" "$dir/$model" "samples/h100/onnx/$model" "samples/onnx/$model"; do
		if [ -r "$p" ]; then path=$p; break; fi
	done
	[ -n "$path" ] || { echo "h100_times_csv: $model: not found" >&2; exit 2; }
	csv="$out/${model%.onnx}-$(printf %s "$dims" | tr ',=' '--')-$dtype.csv"
	jq -r ".runs[$i].ops | to_entries[] | [.key, (if (.value.op == \"Constant\" or
		.value.op == \"Shape\" or .value.op == \"ConstantOfShape\") then 0
		else (.value.graph_us // .value.eager_us) end)] | @csv" "$measured" > "$csv"
	echo "$model $dtype $path,$csv${dims:+,$dims}"
	i=$((i + 1))
done
