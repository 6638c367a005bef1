#!/usr/bin/python3
"""make_torchvision_export.py - samples/torchvision/: torchvision models
exported to ONNX as torch exports them by default, weights stripped.

Run by hand, NOT by `make test` (nor by the build); it needs Debian's
python3-torch, python3-torchvision and python3-onnx:

    apt-get install -y --no-install-recommends \
        python3-torch python3-torchvision python3-onnx
    /usr/bin/python3 scripts/make_torchvision_export.py [OUTDIR]

Unlike scripts/make_onnx_samples.py, nothing is done to the weights before
export: a model built with weights=None has many equal initializers (all
the zero biases), which torch.onnx.export de-duplicates, reading the copies
through Identity nodes.  That is what a user's export of such a model looks
like, and what the importer must fold (squeezenet1_1 has 83
nodes, 18 of them Identity sources); swin_t computes its shapes through
long chains of shape arithmetic.  Opset 13 (swin_t 17), batch N
symbolic, eval mode,
do_constant_folding=True; the floating-point initializers' data stripped as
make_onnx_samples.py strips them.  FACTS.json records what the onnx package
says of each file: nodes, op counts, initializer count and bytes, and the
Identity nodes whose input is an initializer.
"""

import importlib.util
import json
import os
import sys

import onnx
import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("samples", os.path.join(HERE, "make_onnx_samples.py"))
samples = importlib.util.module_from_spec(spec)
spec.loader.exec_module(samples)

# name: (constructor, opset, published GMACs of torchvision's model table
# (its "GFLOPS" column counts multiply-accumulates), or None)
MODELS = {
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(weights=None), 13, None),
    # swin_t computes its window pads from constants through Mod, Slice(step -1),
    # Transpose, Reshape and Cast: 6357 nodes at opset 17
    "swin_t": (lambda: torchvision.models.swin_t(weights=None), 17, 4.49),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/torchvision"
    os.makedirs(out, exist_ok=True)
    facts = {}
    for name, (build, opset, gmacs) in MODELS.items():
        torch.manual_seed(0)
        model = build().eval()
        path = os.path.join(out, name + ".onnx")
        x = torch.randn(1, 3, 224, 224)
        torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"],
                          output_names=["output"], dynamic_axes={"input": {0: "N"}, "output": {0: "N"}},
                          do_constant_folding=True)
        m = onnx.load(path)
        inits = {t.name for t in m.graph.initializer}
        init_bytes = sum(samples.tensor_bytes(t) for t in m.graph.initializer)
        samples.strip(m)
        onnx.save(m, path)
        types = {}
        for n in m.graph.node:
            types[n.op_type] = types.get(n.op_type, 0) + 1
        facts[name] = {
            "nodes": len(m.graph.node),
            "ops_by_type": types,
            "initializers": len(m.graph.initializer),
            "initializer_bytes": init_bytes,
            "identity_of_initializer": sum(
                1 for n in m.graph.node if n.op_type == "Identity" and n.input[0] in inits),
            "opset": opset,
        }
        if gmacs:
            facts[name]["published_gmacs"] = gmacs
        print(name, facts[name])
    with open(os.path.join(out, "FACTS.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
