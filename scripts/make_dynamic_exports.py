#!/usr/bin/python3
"""make_dynamic_exports.py - samples/dynamic/: small torch models exported
with dynamic dims, as users export decoders, encoders and recurrent nets.

Run by hand, NOT by `make test` (nor by the build); it needs Debian's
python3-torch and python3-onnx:

    apt-get install -y --no-install-recommends python3-torch python3-onnx
    /usr/bin/python3 scripts/make_dynamic_exports.py [OUTDIR]

Each model is exported at opset 17 with its batch N (and sequence T) dims
symbolic, eval mode, do_constant_folding=True, weights stripped as
make_onnx_samples.py strips them:

  gpt_decoder.onnx      a GPT-style decoder (token and position embeddings,
                        causal self-attention written out with a mask built
                        from Range and a comparison, two blocks), N and T;
  gpt_decoder_si.onnx   the same after onnx.shape_inference.infer_shapes,
                        which writes unk__* dims into value_info;
  encoder.onnx          nn.TransformerEncoder (two layers), N and T;
  lstm.onnx, gru.onnx   a two-layer LSTM / GRU over T steps, N and T;
  loop.onnx             a scripted loop over the T steps (an ONNX Loop
                        whose trip count comes from the input's shape);
  branch.onnx           a scripted if on a run-time condition (an ONNX If
                        whose branches differ 8-fold).

FACTS.json records, for each file and each of two (N, T) settings, the
multiply-accumulates of the model's Linear layers, attention products and
recurrent cells, counted by hand from the architecture (the *_macs
functions below), which the tests compare with stagecut's FLOPs (2 per
multiply-accumulate, plus the elementwise ops); and the nodes of each file
and the unk__ dims shape inference wrote.
"""

import importlib.util
import json
import math
import os
import sys

import onnx
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("samples", os.path.join(HERE, "make_onnx_samples.py"))
samples = importlib.util.module_from_spec(spec)
spec.loader.exec_module(samples)

VOCAB, D, HEADS, FF, LAYERS, CTX = 512, 64, 4, 256, 2, 128
SETTINGS = [(2, 16), (4, 32)]


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)

    def forward(self, x):
        n, t, _ = x.shape
        q, k, v = self.qkv(x).split(D, dim=2)
        q = q.view(n, t, HEADS, D // HEADS).transpose(1, 2)
        k = k.view(n, t, HEADS, D // HEADS).transpose(1, 2)
        v = v.view(n, t, HEADS, D // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D // HEADS)
        pos = torch.arange(t, device=x.device)
        mask = pos.view(1, t) > pos.view(t, 1)
        att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(n, t, D)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.att = Attention()
        self.mlp = nn.Sequential(nn.Linear(D, FF), nn.GELU(), nn.Linear(FF, D))

    def forward(self, x):
        x = x + self.att(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(VOCAB, D), nn.Embedding(CTX, D)
        self.blocks = nn.Sequential(*[Block() for _ in range(LAYERS)])
        self.ln = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        pos = torch.arange(t, device=idx.device)
        return self.head(self.ln(self.blocks(self.tok(idx) + self.pos(pos))))


class Recurrent(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(32, D, num_layers=2, batch_first=True)
        self.head = nn.Linear(D, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


class Scan(nn.Module):
    """A loop over the T steps (scripted: an ONNX Loop whose trip count is
    the input's dim 1, read through Shape and Gather)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D)

    def forward(self, x):
        h = torch.zeros_like(x[:, 0])
        for t in range(x.size(1)):
            h = torch.relu(self.lin(x[:, t] + h))
        return h


class Branch(nn.Module):
    """An If on a condition only known at run time: one Linear, or two
    through a 4x wider layer."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(D, D)
        self.b = nn.Sequential(nn.Linear(D, 4 * D), nn.Linear(4 * D, D))

    def forward(self, x):
        if bool(x.sum() > 0):
            y = self.a(x)
        else:
            y = self.b(x)
        return y


def scan_macs(n, t):
    return t * n * D * D


def branch_macs(n, t):
    return n * t * 8 * D * D  # the larger branch


def gpt_macs(n, t):
    per_block = n * t * (D * 3 * D + D * D + D * FF + FF * D)  # the Linear layers
    per_block += 2 * n * HEADS * t * t * (D // HEADS)  # q k^T and att v
    return LAYERS * per_block + n * t * D * VOCAB


def encoder_macs(n, t):
    per_layer = n * t * (D * 3 * D + D * D + D * FF + FF * D)
    per_layer += 2 * n * HEADS * t * t * (D // HEADS)
    return LAYERS * per_layer


def rnn_macs(gates):
    def macs(n, t):
        first = n * t * gates * D * (32 + D)
        second = n * t * gates * D * (D + D)
        return first + second + n * t * D * 10
    return macs


def export(model, x, path, dynamic):
    torch.onnx.export(model, x, path, opset_version=17, input_names=["input"],
                      output_names=["output"], dynamic_axes={"input": dynamic, "output": dynamic},
                      do_constant_folding=True)
    m = onnx.load(path)
    samples.strip(m)
    onnx.save(m, path)
    return m


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/dynamic"
    os.makedirs(out, exist_ok=True)
    facts = {}
    torch.manual_seed(0)
    encoder = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(D, HEADS, FF, dropout=0.0, batch_first=True), LAYERS)
    models = [
        ("gpt_decoder", GPT(), torch.randint(0, VOCAB, (2, 16)), gpt_macs),
        ("encoder", encoder, torch.randn(2, 16, D), encoder_macs),
        ("lstm", Recurrent(nn.LSTM), torch.randn(2, 16, 32), rnn_macs(4)),
        ("gru", Recurrent(nn.GRU), torch.randn(2, 16, 32), rnn_macs(3)),
    ]
    models += [
        ("loop", torch.jit.script(Scan().eval()), torch.randn(2, 16, D), scan_macs),
        ("branch", torch.jit.script(Branch().eval()), torch.randn(2, 16, D), branch_macs),
    ]
    for name, model, x, macs in models:
        model.eval()
        path = os.path.join(out, name + ".onnx")
        m = export(model, x, path, {0: "N", 1: "T"})
        entry = {"nodes": len(m.graph.node), "macs": {}}
        for n, t in SETTINGS:
            entry["macs"]["N=%d,T=%d" % (n, t)] = macs(n, t)
        facts[name + ".onnx"] = entry
        if name == "gpt_decoder":
            si = onnx.shape_inference.infer_shapes(m)
            onnx.save(si, os.path.join(out, name + "_si.onnx"))
            unk = sorted({d.dim_param for vi in si.graph.value_info
                          for d in vi.type.tensor_type.shape.dim if d.dim_param.startswith("unk__")})
            facts[name + "_si.onnx"] = dict(entry, unk_dims=len(unk))
    with open(os.path.join(out, "FACTS.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
