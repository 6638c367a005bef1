#!/usr/bin/python3
"""make_onnx_samples.py - remake samples/onnx/: real architectures exported to
ONNX with their weights stripped, and FACTS.json beside them.

Run by hand, NOT by `make test` (nor by the build): it needs Debian's
python3-torch, python3-torchvision and python3-onnx, which neither the build
nor the tests may use.  Run it with Debian's interpreter from the top of the
tree:

    apt-get install -y --no-install-recommends \
        python3-torch python3-torchvision python3-onnx
    /usr/bin/python3 scripts/make_onnx_samples.py [OUTDIR]

OUTDIR defaults to samples/onnx.  Every model is built by torchvision (or
torch.nn) with random initialisation (weights=None, torch.manual_seed(0), then
small noise on every parameter so that no two initializers are equal and
torch does not merge them), so nothing is downloaded, and exported with torch.onnx.export (opset OPSET, eval
mode, do_constant_folding=True).  Then every floating-point initializer's
data is stripped: its name, dims and data_type stay, its raw data is cleared
and it is marked data_location=EXTERNAL with location WEIGHTS_NOT_SHIPPED,
a file that is not shipped (stagecut's importer reads only dims and types).
Integer initializers (shape vectors and the like, a few bytes each) keep
their data so that the files stay self-contained for shape inference.

FACTS.json records, per model, what the onnx package (not stagecut) says of
the exported graph: op counts by type, the number of nodes, the opset, the
number of initializers and the sum of their bytes (prod(dims) x element size
of data_type), the graph inputs with their dims, the torch module's parameter count and
BatchNorm channels (initializer_bytes = 4 x (parameters - BN channels), as
the export folds BatchNorm into convolutions), the multiply-accumulates of
Conv, Gemm and MatMul from onnx shape inference (N = 1); and for resnet50 the
published multiply-accumulate count at 224x224 as a reference, with its
source.  tests/cli/test_onnx_samples.c compares `stagecut info --json` with
these facts.
"""

import collections
import json
import os
import sys

import numpy as np
import onnx
import onnx.mapping
import onnx.shape_inference
import torch
import torchvision

OPSET = 14
STRIPPED_LOCATION = "WEIGHTS_NOT_SHIPPED"
FLOAT_TYPES = {
    onnx.TensorProto.FLOAT,
    onnx.TensorProto.FLOAT16,
    onnx.TensorProto.DOUBLE,
    onnx.TensorProto.BFLOAT16,
}


class Encoder(torch.nn.Module):
    """A small Transformer encoder: 4 layers, d_model 512, 8 heads, feed
    forward 2048, over a sequence of 128 tokens (batch first, batch 1)."""

    def __init__(self, layers=4, d_model=512, heads=8, ff=2048):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(
            d_model, heads, dim_feedforward=ff, dropout=0.0, batch_first=True
        )
        self.encoder = torch.nn.TransformerEncoder(
            layer, layers, enable_nested_tensor=False
        )

    def forward(self, x):
        return self.encoder(x)


def models():
    """(file stem, module, example input, input name, dynamic axes, note)."""
    torch.manual_seed(0)
    yield (
        "resnet50",
        torchvision.models.resnet50(weights=None),
        torch.randn(1, 3, 224, 224),
        {"input": {0: "N"}, "output": {0: "N"}},
        "torchvision.models.resnet50(weights=None); input N x 3 x 224 x 224, "
        "N symbolic",
    )
    torch.manual_seed(0)
    yield (
        "inception_v3",
        torchvision.models.inception_v3(
            weights=None, aux_logits=False, init_weights=False
        ),
        torch.randn(1, 3, 299, 299),
        None,
        "torchvision.models.inception_v3(weights=None, aux_logits=False, "
        "init_weights=False); input 1 x 3 x 299 x 299",
    )
    torch.manual_seed(0)
    yield (
        "vit_b_16",
        torchvision.models.vit_b_16(weights=None),
        torch.randn(1, 3, 224, 224),
        None,
        "torchvision.models.vit_b_16(weights=None); input 1 x 3 x 224 x 224",
    )
    torch.manual_seed(0)
    yield (
        "transformer_encoder",
        Encoder(),
        torch.randn(1, 128, 512),
        None,
        "torch.nn.TransformerEncoder(TransformerEncoderLayer(512, 8, "
        "dim_feedforward=2048, dropout=0.0, batch_first=True), 4); "
        "input 1 x 128 x 512",
    )


def distinct(module):
    """Adds small noise to every parameter so that no two are equal, as in a
    trained model: torch.onnx.export merges initializers with equal data
    (LayerNorm's ones and zeros, or the deep-copied layers of
    TransformerEncoder, would otherwise be shared across layers)."""
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(torch.randn(p.shape, generator=g) * 1e-3)


def elem_size(data_type):
    return np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[data_type]).itemsize


def tensor_bytes(t):
    n = 1
    for d in t.dims:
        n *= d
    return n * elem_size(t.data_type)


def strip(model):
    """Clears the data of every floating-point initializer, keeping name,
    dims and data_type; returns how many were stripped."""
    offset = 0
    count = 0
    for t in model.graph.initializer:
        if t.data_type not in FLOAT_TYPES:
            continue
        size = tensor_bytes(t)
        t.ClearField("raw_data")
        for field in ("float_data", "double_data", "int32_data", "int64_data"):
            t.ClearField(field)
        t.data_location = onnx.TensorProto.EXTERNAL
        del t.external_data[:]
        for key, value in (
            ("location", STRIPPED_LOCATION),
            ("offset", str(offset)),
            ("length", str(size)),
        ):
            entry = t.external_data.add()
            entry.key = key
            entry.value = value
        offset += size
        count += 1
    return count


def dims_of(value_info):
    out = []
    for d in value_info.type.tensor_type.shape.dim:
        out.append(d.dim_param if d.HasField("dim_param") else d.dim_value)
    return out


def facts_of(model):
    g = model.graph
    ops = collections.Counter(n.op_type for n in g.node)
    init_names = {t.name for t in g.initializer}
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    return {
        "opset": opset,
        "nodes": len(g.node),
        "ops_by_type": dict(sorted(ops.items())),
        "initializers": len(g.initializer),
        "initializer_bytes": sum(tensor_bytes(t) for t in g.initializer),
        "initializer_bytes_stripped": sum(
            tensor_bytes(t)
            for t in g.initializer
            if t.data_location == onnx.TensorProto.EXTERNAL
        ),
        "inputs": {
            i.name: dims_of(i) for i in g.input if i.name not in init_names
        },
        "outputs": {o.name: dims_of(o) for o in g.output},
    }


def shape_map(model, batch):
    """Every value's dims after onnx shape inference, the symbolic batch
    dimension N taken as batch."""
    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    out = {}
    for v in list(g.input) + list(g.value_info) + list(g.output):
        out[v.name] = [batch if d == "N" else d for d in dims_of(v)]
    for t in g.initializer:
        out[t.name] = list(t.dims)
    return out


def prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def macs_of(model, batch=1):
    """Multiply-accumulates of Conv, Gemm and MatMul (the ops that carry
    nearly all of them) from onnx shape inference, with N = batch; None
    when a shape is unknown."""
    shapes = shape_map(model, batch)
    total = 0
    for n in model.graph.node:
        if n.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        dims = [shapes.get(x) for x in list(n.input[:2]) + [n.output[0]]]
        if any(d is None or not all(isinstance(x, int) for x in d) for d in dims):
            return None
        a, w, y = dims
        if n.op_type == "Conv":
            # each output element: C_in / group x kernel MACs
            total += prod(y) * prod(w[1:])
        else:
            # the reduced dimension is A's last (Gemm: or first, transA)
            k = a[-1]
            for attr in n.attribute:
                if attr.name == "transA" and attr.i:
                    k = a[0]
            total += prod(y) * k
    return total


REFERENCES = {
    "resnet50": {
        "macs_224": 4.1e9,
        "gflops_torchvision": 4.09,
        "params_torchvision": 25557032,
        "note": "published multiply-accumulates of one 224x224 image (batch 1): "
        "about 4.1 G for torchvision's ResNet-50, which strides in the 3x3 "
        "convolution of each bottleneck ('v1.5'); torchvision's "
        "ResNet50_Weights documents GFLOPS 4.09 (its GFLOPS count "
        "multiply-accumulates) and 25,557,032 parameters.  He et al., 'Deep "
        "Residual Learning for Image Recognition', CVPR 2016, Table 1 gives "
        "3.8 x 10^9 multiply-adds for the original, which strides in the "
        "first 1x1 convolution instead",
        "source": "https://pytorch.org/vision/stable/models/generated/"
        "torchvision.models.resnet50.html",
    },
    "inception_v3": {
        "gflops_torchvision": 5.71,
        "params_torchvision": 27161264,
        "note": "torchvision's Inception_V3_Weights (299x299; its parameter "
        "count includes the auxiliary classifier, which this export leaves "
        "out)",
        "source": "https://pytorch.org/vision/stable/models/generated/"
        "torchvision.models.inception_v3.html",
    },
    "vit_b_16": {
        "gflops_torchvision": 17.56,
        "params_torchvision": 86567656,
        "note": "torchvision's ViT_B_16_Weights.IMAGENET1K_V1 (224x224)",
        "source": "https://pytorch.org/vision/stable/models/generated/"
        "torchvision.models.vit_b_16.html",
    },
}


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "samples/onnx"
    os.makedirs(outdir, exist_ok=True)
    facts = {
        "_about": "written by scripts/make_onnx_samples.py with torch "
        + torch.__version__
        + ", torchvision "
        + torchvision.__version__
        + ", onnx "
        + onnx.__version__
        + "; counted by the onnx package from the exported graphs, not by "
        "stagecut.  initializer_bytes = sum over initializers of "
        "prod(dims) x element size of data_type.",
        "models": {},
    }
    for stem, module, example, dynamic, note in models():
        module.eval()
        distinct(module)
        path = os.path.join(outdir, stem + ".onnx")
        full = path + ".full"
        # with gradients enabled: under torch.no_grad() eval-mode attention
        # takes its fused fast path (aten::_native_multi_head_attention),
        # which has no ONNX export
        torch.onnx.export(
            module,
            (example,),
            full,
            input_names=["input"],
            output_names=["output"],
            dynamic_axes=dynamic,
            opset_version=OPSET,
            do_constant_folding=True,
            training=torch.onnx.TrainingMode.EVAL,
        )
        model = onnx.load(full)
        onnx.checker.check_model(model)
        os.remove(full)
        stripped = strip(model)
        model.doc_string = (
            "stagecut sample: "
            + note
            + "; random weights, stripped (data_location EXTERNAL, "
            + STRIPPED_LOCATION
            + ", not shipped)"
        )
        onnx.save(model, path)
        f = facts_of(model)
        f["made_by"] = note
        f["initializers_stripped"] = stripped
        f["macs_conv_gemm_matmul"] = macs_of(model)
        # the export folds each BatchNorm into the convolution before it
        # (gamma and beta become the conv's scale and a bias of C_out), so
        # the initializers hold the module's parameters less one per BN
        # channel, 4 bytes each
        f["torch_parameters"] = sum(p.numel() for p in module.parameters())
        f["batchnorm_channels"] = sum(
            b.num_features
            for b in module.modules()
            if isinstance(b, torch.nn.BatchNorm2d)
        )
        f["file_bytes"] = os.path.getsize(path)
        if stem in REFERENCES:
            f["reference"] = REFERENCES[stem]
        facts["models"][stem + ".onnx"] = f
        print(
            "%s: %d nodes, %d initializers (%d stripped), %d initializer bytes, "
            "file %d bytes"
            % (path, f["nodes"], f["initializers"], stripped,
               f["initializer_bytes"], f["file_bytes"])
        )
    with open(os.path.join(outdir, "FACTS.json"), "w") as out:
        json.dump(facts, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
