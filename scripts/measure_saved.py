#!/usr/bin/python3
"""measure_saved.py - the truth for stagecut's activation memory: the bytes
PyTorch's autograd saves for the backward pass, per pipeline stage
(DESIGN.md section 1, "Memory per stage": stash(S)).

    /usr/bin/python3 scripts/measure_saved.py OUTDIR [--batch 8] [--models a,b]
                                              [--debug] [--table]

Needs Debian's python3-torch, python3-torchvision and python3-onnx (CPU only):
    apt-get install -y --no-install-recommends \\
        python3-torch python3-torchvision python3-onnx
Written against torch 1.13 (bookworm); later versions work the same way.

What is measured
----------------
For each model below, in train mode, at --batch (default 8) and fp32, ONE
forward pass with grad enabled runs under
torch.autograd.graph.saved_tensors_hooks.  Every tensor autograd packs for a
backward formula is one record: its storage (data_ptr and nbytes of the
untyped storage, so a view counts the whole storage it keeps alive), its
shape and dtype, and the unit of the model that was running when it was
packed.  Units are the model's blocks (resnet18: the stem conv1/bn1/relu/
maxpool, layer1.0 .. layer4.1, avgpool/fc), tracked with forward pre and post
hooks; a tensor packed while no unit runs (torch.flatten in resnet's forward)
goes to the unit that ran last (the first unit if none has run yet).

  - storages of the model's parameters and buffers (running statistics,
    constant masks) are left out: they are not per-micro-batch stash (a
    weight's transpose is a view of the weight, so it is left out too);
  - each storage counts once per stage: in-place ops (resnet's ReLU
    (inplace=True) saves its result, the BatchNorm output that the next
    Conv saves again as its input) share a storage;
  - a storage saved by ops of two stages counts in both (each stage holds
    its own copy);
  - the model input is stash when an op saves it (the first Conv saves it);
  - what torch 1.13 saves and torch 2 does not (NOT_IN_TORCH2: the input of
    mean, which torchvision's global average pools run) is left out of
    "stash" and kept in "stash_literal".

A stage of a k-way partition is a contiguous run of units (unit i of n goes
to stage floor(i*k/n) + 1); k = 1, 2, 4, and 8 when the model has at least 8
units.  truth.json gives, for each model and k, the bytes per stage.

The ONNX side
-------------
Each model is exported with torch.onnx.export(training=TrainingMode.TRAINING,
do_constant_folding=False, opset 17, static shapes at --batch):
TRAINING keeps the graph torch runs in training (BatchNormalization stays a
node with training_mode=1 and is not folded into the Conv, as the EVAL
export's peephole pass does; Dropout would stay too, so none of these models
has one: the torchvision models' Dropout modules become Identity, the
transformers use dropout=0.0, which F.multi_head_attention_forward skips);
constant folding is off so that no op torch runs is folded away; opset 17
exports LayerNorm as one LayerNormalization node (opset 14 splits it into
ReduceMean/Sub/Pow/...).  GELU has no ONNX op at opset 17 and is exported as
Div/Erf/Add/Mul/Mul; torch saves only GELU's input.

Torch names an exported node by its module path ("/layer1/layer1.0/conv1/
Conv"); stagecut keeps ONNX node names as op names (stagecut solve's -o file,
stages 1-based).  A node belongs to the unit whose module path its name
starts with; a node in no unit (a Constant, resnet's /Flatten) takes the
stage of the node before it in the file's (topological) order, the first
matched node's when it comes first: the same rule as the measurement's.
stagecut folds what a runtime computes once at load time (Constant nodes,
shape arithmetic) into constants, and a partition file names only its ops:
with --stagecut (default: the repository's ./stagecut when built) the files
name the ops of `stagecut solve MODEL.onnx -k 1`'s partition, else every
ONNX node.
For each model and k, OUTDIR/MODEL.kK.json is a stagecut partition file
({"format": "stagecut-partition/1", "k": K, "stages": {name: stage}}).

Output: OUTDIR/MODEL.onnx, OUTDIR/MODEL.kK.json and OUTDIR/truth.json:
    {"batch": B, "dtype": "fp32", "torch": version,
     "models": {MODEL: {"units": [...], "onnx": "MODEL.onnx",
                        "partitions": {"K": "MODEL.kK.json"},
                        "stash": {"K": [bytes of stage 1, ..., stage K]},
                        "stash_literal": {"K": [...]} (NOT_IN_TORCH2 kept),
                        "left_out_bytes": bytes of parameter/buffer storages}}}

--debug prints each saved tensor: its unit, the innermost module running,
the autograd node and the saved field it went to (found by walking the
graph after the pass and reading every _saved_* field of every node, which
calls the unpack hook, so the pack record is known; torch 1.13 has no
torch._C._current_autograd_node), its shape and bytes.  --table prints the
summary by node kind: which fields each kind of backward node saved, how
many and how many bytes (parameters' and buffers' storages apart).
"""

import argparse
import collections
import json
import math
import os
import subprocess
import sys
import warnings

import onnx
import torch
import torchvision
from torch import nn

# ---------------------------------------------------------------- the models


def no_dropout(model):
    """Replaces every Dropout module by Identity (see the docstring)."""
    for mod in list(model.modules()):
        for cname, child in list(mod.named_children()):
            if isinstance(child, nn.Dropout):
                setattr(mod, cname, nn.Identity())
    return model


def resnet18(batch):
    model = torchvision.models.resnet18(weights=None)
    units = [["conv1", "bn1", "relu", "maxpool"]]
    units += [["layer%d.%d" % (i, j)] for i in range(1, 5) for j in range(2)]
    units += [["avgpool", "fc"]]
    return model, torch.randn(batch, 3, 224, 224), units


def mobilenet_v2(batch):
    model = no_dropout(torchvision.models.mobilenet_v2(weights=None))
    units = [["features.%d" % i] for i in range(19)] + [["classifier"]]
    return model, torch.randn(batch, 3, 224, 224), units


def transformer_encoder(batch):
    """nn.TransformerEncoder: 8 post-norm layers, d 256, 4 heads, ReLU MLP 1024,
    sequence 128, batch first, dropout 0."""
    layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, 8, enable_nested_tensor=False)
    units = [["layers.%d" % i] for i in range(8)]
    return no_dropout(model), torch.randn(batch, 128, 256), units


class Embed(nn.Module):
    def __init__(self, vocab, seq, d):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        return self.tok(ids) + self.pos(pos)


class Block(nn.Module):
    """Pre-norm decoder block: causal self-attention written out, GELU MLP."""

    def __init__(self, seq, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.act = nn.GELU()
        self.out = nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h))
        att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.out(self.act(self.fc(self.ln2(x))))


class Head(nn.Module):
    def __init__(self, vocab, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.lm = nn.Linear(d, vocab, bias=False)

    def forward(self, x):
        return self.lm(self.ln(x))


class GPT(nn.Module):
    def __init__(self, vocab=512, seq=128, d=128, heads=4, layers=6):
        super().__init__()
        self.emb = Embed(vocab, seq, d)
        self.blocks = nn.Sequential(*[Block(seq, d, heads) for _ in range(layers)])
        self.head = Head(vocab, d)

    def forward(self, ids):
        return self.head(self.blocks(self.emb(ids)))


def gpt_decoder(batch):
    """A small GPT-like decoder of our own: vocab 512, sequence 128, d 128,
    4 heads, 7 pre-norm blocks, untied head.  The embedding shares a unit
    with the first block: alone it would be a stage of 9 KB (the token ids),
    where stagecut's folding of the position ids (an arange of constants)
    is a tenth of the stage."""
    units = [["emb", "blocks.0"]] + [["blocks.%d" % i] for i in range(1, 7)] + [["head"]]
    return GPT(layers=7), torch.randint(0, 512, (batch, 128)), units


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODELS = {
    "resnet18": resnet18,
    "mobilenet_v2": mobilenet_v2,
    "transformer_encoder": transformer_encoder,
    "gpt_decoder": gpt_decoder,
}

# ---------------------------------------------------------- the measurement


# (autograd node, field) that torch 1.13 saves and torch 2 does not: mean's
# backward keeps only the input's sizes and numel there (its derivative
# formula reads self.sym_sizes() and self.sym_numel(), which torch 2's
# codegen saves as sizes).  Left out of "stash" (so that the truth is the
# same under either version), kept in "stash_literal".
NOT_IN_TORCH2 = {("MeanBackward0", "self"), ("MeanBackward1", "self")}


def storage_of(t):
    """(data_ptr, nbytes) of the untyped storage behind t (torch 2 names it
    untyped_storage, torch 1.13 _storage)."""
    get = getattr(t, "untyped_storage", None) or t._storage
    s = get()
    return s.data_ptr(), s.nbytes()


def unit_of_module(units):
    """{qualified module name: unit index} for the units' own modules."""
    return {name: i for i, mods in enumerate(units) for name in mods}


def measure(model, x, units):
    """One training forward pass under saved-tensor hooks; returns the list of
    records (dicts) of every saved tensor, with the autograd node and field
    each went to filled in from a walk of the graph."""
    unit_idx = unit_of_module(units)
    left_out = set()
    for t in list(model.parameters()) + list(model.buffers()):
        left_out.add(storage_of(t)[0])
    stack = []  # qualified names of the modules running, outermost first
    state = {"last": 0}
    handles = []
    for name, mod in model.named_modules():
        if not name:
            continue

        def pre(m, inp, name=name):
            stack.append(name)

        def post(m, inp, out, name=name):
            stack.pop()
            if name in unit_idx:
                state["last"] = unit_idx[name]

        handles.append(mod.register_forward_pre_hook(pre))
        handles.append(mod.register_forward_hook(post))

    records = []
    probe = []

    def pack(t):
        unit = state["last"]
        for name in reversed(stack):
            if name in unit_idx:
                unit = unit_idx[name]
                break
        ptr, nbytes = storage_of(t)
        records.append({
            "unit": unit,
            "module": stack[-1] if stack else "(none)",
            "shape": list(t.shape),
            "dtype": str(t.dtype).replace("torch.", ""),
            "key": (ptr, nbytes),
            "bytes": nbytes,
            "tensor_bytes": t.numel() * t.element_size(),
            "left_out": ptr in left_out,
            "node": "?",
            "field": "?",
        })
        return (len(records) - 1, t)

    def unpack(p):
        probe.append(p[0])
        return p[1]

    model.train()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = model(x)
    for h in handles:
        h.remove()
    # the walk: every node's _saved_* fields, each read unpacks its tensors
    seen = {}  # id: node, holding each node's Python object so that no id is reused
    todo = [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        for field in dir(node):
            if not field.startswith("_saved_"):
                continue
            probe.clear()
            try:
                getattr(node, field)
            except RuntimeError:
                pass
            for i in probe:
                records[i]["node"] = node.name()
                records[i]["field"] = field[len("_saved_"):]
        todo.extend(f for f, _ in node.next_functions)
    probe.clear()
    del out
    return records


def stage_of_unit(i, n, k):
    return i * k // n + 1


def stash_per_stage(records, n_units, k, literal=False):
    keys = [set() for _ in range(k)]
    total = [0] * k
    for r in records:
        if r["left_out"] or r["bytes"] == 0:
            continue
        if not literal and (r["node"], r["field"]) in NOT_IN_TORCH2:
            continue
        s = stage_of_unit(r["unit"], n_units, k) - 1
        if r["key"] not in keys[s]:
            keys[s].add(r["key"])
            total[s] += r["bytes"]
    return total


def self_check():
    """The instrument on a model whose stash is known by hand: Linear(16, 32),
    ReLU, Linear(32, 8) at batch 4, one unit each.  The first Linear saves
    the input (4 x 16 floats, 256 B), ReLU its result (4 x 32, 512 B), the
    second Linear its input, which is ReLU's result (the same storage: once
    in a stage holding both, again in a stage of its own); the weights'
    transposes are views of parameters and are left out."""
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
    records = measure(model, torch.randn(4, 16), [["0"], ["1"], ["2"]])
    want = {1: [768], 2: [768, 512], 3: [256, 512, 512]}  # k = 2: units 0, 1 | 2
    for k, w in want.items():
        got = stash_per_stage(records, 3, k)
        if got != w:
            raise SystemExit("measure_saved.py: self-check failed at k = %d: %s, not %s" % (k, got, w))


# ------------------------------------------------------------ the ONNX side


def unit_of_node(name, units):
    """The unit whose module path the node's name starts with, or None.
    Torch scopes "layer1.0" as /layer1/layer1.0/..., "conv1" as /conv1/...,
    an nn.TransformerEncoder's "layers.0" as /layers.0/..."""
    segs = name.split("/")[1:-1]
    for i, mods in enumerate(units):
        for q in mods:
            # nn.TransformerEncoder's layers come out as /layers.0/...
            if segs and (segs[0] == q or (len(segs) > 1 and segs[0] == q.split(".")[0] and segs[1] == q)):
                return i
    return None


def export(model, x, path):
    with warnings.catch_warnings():
        # torch warns of every BatchNormalization's num_batches_tracked update
        warnings.simplefilter("ignore")
        torch.onnx.export(model, x, path, opset_version=17, training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False, input_names=["input"], output_names=["output"])
    names = [n.name for n in onnx.load(path).graph.node]
    if len(set(names)) != len(names) or "" in names:
        raise SystemExit("%s: node names are not unique and non-empty" % path)
    return names


def node_units(names, units):
    got = [unit_of_node(n, units) for n in names]
    first = next((u for u in got if u is not None), 0)
    prev = first
    for i, u in enumerate(got):
        if u is None:
            got[i] = prev
        prev = got[i]
    return got


def stagecut_ops(stagecut, onnx_path, outdir):
    """The op names stagecut keeps of the model (it folds Constant nodes and
    shape arithmetic into constants): those of `stagecut solve -k 1`'s
    partition file; None when no stagecut is given."""
    if not stagecut:
        return None
    part = os.path.join(outdir, "ops.json")
    run = subprocess.run([stagecut, "solve", onnx_path, "-k", "1", "-o", part],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        raise SystemExit("%s: stagecut solve failed: %s" % (onnx_path, run.stderr.strip()))
    with open(part) as f:
        ops = set(json.load(f)["stages"])
    os.remove(part)
    return ops


def write_partition(path, names, node_unit, n_units, k, ops):
    stages = {n: stage_of_unit(u, n_units, k) for n, u in zip(names, node_unit)
              if ops is None or n in ops}
    with open(path + ".tmp", "w") as f:
        json.dump({"format": "stagecut-partition/1", "k": k, "stages": stages}, f, indent=1)
    os.replace(path + ".tmp", path)


# ------------------------------------------------------------------ reports


def fmt_bytes(b):
    return "%.2f MB" % (b / 1e6) if b >= 1e5 else "%d B" % b


def print_debug(name, records, units):
    print("== %s: every saved tensor (unit, module, autograd node.field, shape, dtype, tensor "
          "bytes, bytes of its storage)" % name)
    for r in records:
        print("  %-14s %-34s %-34s %-22s %-8s %10d %10d%s" % (
            "+".join(units[r["unit"]]), r["module"], r["node"] + "." + r["field"],
            "x".join(map(str, r["shape"])), r["dtype"], r["tensor_bytes"], r["bytes"],
            note(r)))


def note(r):
    if r["left_out"]:
        return "  parameter/buffer: left out"
    if (r["node"], r["field"]) in NOT_IN_TORCH2:
        return "  not saved by torch 2: left out"
    return ""


def print_table(name, records):
    """Summary by autograd node kind: the fields saved, count, bytes."""
    rows = collections.OrderedDict()
    for r in records:
        key = (r["node"], r["field"], note(r))
        row = rows.setdefault(key, {"n": 0, "bytes": 0, "shape": r["shape"], "dtype": r["dtype"]})
        row["n"] += 1
        row["bytes"] += r["tensor_bytes"]
    print("== %s: saved tensors by autograd node kind (tensor bytes, before per-stage "
          "de-duplication)" % name)
    print("  %-30s %-14s %5s %14s  %s" % ("node", "field", "count", "bytes", "first shape"))
    for (node, field, why), row in sorted(rows.items()):
        print("  %-30s %-14s %5d %14s  %s %s%s" % (
            node, field, row["n"], fmt_bytes(row["bytes"]), "x".join(map(str, row["shape"])),
            row["dtype"], why))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--stagecut", default=os.path.join(REPO, "stagecut"),
                    help="the stagecut whose op names the partition files take ('' or a missing "
                    "file: every ONNX node)")
    ap.add_argument("--debug", action="store_true", help="print every saved tensor")
    ap.add_argument("--table", action="store_true", help="print the saved tensors by node kind")
    args = ap.parse_args()
    wanted = [m for m in args.models.split(",") if m]
    for m in wanted:
        if m not in MODELS:
            ap.error("unknown model %r (known: %s)" % (m, ", ".join(MODELS)))
    os.makedirs(args.outdir, exist_ok=True)
    stagecut = args.stagecut if args.stagecut and os.path.isfile(args.stagecut) else None
    torch.set_num_threads(min(2, torch.get_num_threads()))
    self_check()
    truth = {"batch": args.batch, "dtype": "fp32", "torch": torch.__version__, "models": {}}
    for name in wanted:
        torch.manual_seed(0)
        model, x, units = MODELS[name](args.batch)
        records = measure(model, x, units)
        if args.debug:
            print_debug(name, records, units)
        if args.table:
            print_table(name, records)
        onnx_path = os.path.join(args.outdir, name + ".onnx")
        names = export(model, x, onnx_path)
        nu = node_units(names, units)
        ops = stagecut_ops(stagecut, onnx_path, args.outdir)
        ks = [k for k in (1, 2, 4, 8) if k <= len(units)]
        entry = {"units": ["+".join(u) for u in units], "onnx": name + ".onnx", "partitions": {},
                 "stash": {}, "stash_literal": {}, "left_out_bytes": sum({r["key"]: r["bytes"] for r in records
                                                     if r["left_out"]}.values())}
        for k in ks:
            part = "%s.k%d.json" % (name, k)
            write_partition(os.path.join(args.outdir, part), names, nu, len(units), k, ops)
            entry["partitions"][str(k)] = part
            entry["stash"][str(k)] = stash_per_stage(records, len(units), k)
            entry["stash_literal"][str(k)] = stash_per_stage(records, len(units), k, literal=True)
        truth["models"][name] = entry
        print("%s: %d saved tensors, %d ONNX nodes, stash %s at k = 1" % (
            name, len(records), len(names), fmt_bytes(entry["stash"]["1"][0])), file=sys.stderr)
    path = os.path.join(args.outdir, "truth.json")
    with open(path + ".tmp", "w") as f:
        json.dump(truth, f, indent=1)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
