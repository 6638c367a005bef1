#!/usr/bin/python3
"""make_encdec.py OUTDIR [LAYERS...] - exports torch.nn.Transformer models
(LAYERS encoder + LAYERS decoder layers, d_model 512, 8 heads, feed-forward
2048; default 3 6 12) to OUTDIR/encdec-L.onnx for perf/perf_encdec.sh:
the wide graphs of the exact DP's benchmark, where every decoder layer
reads the encoder's output (cross-attention).  Random weights
(torch.manual_seed(0), then small noise so that no two initializers are
equal), stripped after export as scripts/make_onnx_samples.py does, so each
file is small; source and target lengths are dynamic axes.  Needs Debian's
python3-torch and python3-onnx (run with /usr/bin/python3); nothing is
downloaded.
"""

import os
import sys

import onnx
import torch

FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE,
               onnx.TensorProto.BFLOAT16}


def strip(model):
    for t in model.graph.initializer:
        if t.data_type not in FLOAT_TYPES:
            continue
        t.ClearField("raw_data")
        for field in ("float_data", "double_data", "int32_data", "int64_data"):
            t.ClearField(field)
        t.data_location = onnx.TensorProto.EXTERNAL
        del t.external_data[:]
        e = t.external_data.add()
        e.key, e.value = "location", "WEIGHTS_NOT_SHIPPED"


class EncDec(torch.nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.t = torch.nn.Transformer(d_model=512, nhead=8, num_encoder_layers=layers,
                                      num_decoder_layers=layers, dim_feedforward=2048,
                                      dropout=0.0, batch_first=True)

    def forward(self, src, tgt):
        return self.t(src, tgt)


def main():
    out = sys.argv[1]
    layers = [int(a) for a in sys.argv[2:]] or [3, 6, 12]
    os.makedirs(out, exist_ok=True)
    for n in layers:
        torch.manual_seed(0)
        m = EncDec(n).eval()
        g = torch.Generator().manual_seed(1)
        with torch.no_grad():
            for p in m.parameters():
                p.add_(torch.randn(p.shape, generator=g) * 1e-3)
        path = os.path.join(out, "encdec-%d.onnx" % n)
        full = path + ".full"
        src, tgt = torch.randn(1, 128, 512), torch.randn(1, 64, 512)
        # (with gradients on, torch takes the plain layers, which export,
        # not its fused inference path)
        if True:
            torch.onnx.export(m, (src, tgt), full, input_names=["src", "tgt"],
                              output_names=["out"],
                              dynamic_axes={"src": {1: "src_len"}, "tgt": {1: "tgt_len"},
                                            "out": {1: "tgt_len"}},
                              opset_version=14, do_constant_folding=True)
        model = onnx.load(full)
        os.remove(full)
        strip(model)
        onnx.save(model, path)
        print(path, len(model.graph.node), "nodes", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
