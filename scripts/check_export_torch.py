#!/usr/bin/python3
"""check_export_torch.py - run stagecut's exports on the torchvision models
they name, and compare with the model.

    /usr/bin/python3 scripts/check_export_torch.py [STAGECUT]

Needs Debian's python3-torch and python3-torchvision (torch 1.13; the
`python3` on PATH may lack them).  For resnet50 and inception_v3 (the
models samples/onnx/*.onnx were exported from, scripts/make_onnx_samples.py)
at every module depth: `stagecut solve --align D` then `export --format
deepspeed --align D` and `--format pytorch`; the model is built with
random weights (seeded), in eval mode, every BatchNorm with random
statistics (so a BatchNorm left out shows).  Then

  - every name either export writes is a module of the model
    (get_submodule), and no DeepSpeed layer holds another;
  - the DeepSpeed list, cut at its parts, run stage by stage (each stage an
    nn.Sequential of its layers) on a small input gives the model's output:
    an {"own ops of": ...} entry runs its ops (Flatten: torch.flatten(x, 1),
    Relu: torch.relu, the only own ops these models have), and after a layer marked 'folded'
    runs the module torch.onnx folded into it (the model's children after
    it up to the next listed one: the BatchNorm).

Prints one line per case and exits 0 when all agree, 1 otherwise (2 when
stagecut fails).  Run by tests/cli/test_export_torch.c when torch is there.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name: (constructor, input shape, depths, k)
MODELS = {
    "resnet50": (lambda: torchvision.models.resnet50(weights=None), (2, 3, 64, 64), (1, 2, 3, 4), 4),
    "inception_v3": (lambda: torchvision.models.inception_v3(weights=None, aux_logits=False,
                                                             init_weights=False),
                     (2, 3, 96, 96), (1, 2, 3), 5),
}

# the own ops of these models: the root's torch.flatten, BasicConv2d's F.relu
OWN_OPS = {"Flatten": lambda x: torch.flatten(x, 1), "Relu": torch.relu}


def model_of(build):
    torch.manual_seed(0)
    model = build().eval()
    with torch.no_grad():
        for mod in model.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.normal_(0, 0.5)
                mod.running_var.uniform_(0.5, 2.0)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.normal_(0, 0.5)
    return model


def run(stagecut, *args):
    r = subprocess.run([stagecut, *args], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        print("stagecut %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        sys.exit(2)
    return r.stdout


def own_op(names):
    fns = []
    for name in names:
        kind = re.sub(r"_[0-9]+$", "", name.rsplit("/", 1)[-1])
        if kind not in OWN_OPS:
            raise ValueError("no torch function for the own op '%s'" % name)
        fns.append(OWN_OPS[kind])

    def f(x):
        for fn in fns:
            x = fn(x)
        return x
    return f


def restore_folded(model, name, listed):
    """The modules after `name` among its parent's children, up to the next
    one the list names (or holds, or is held by)."""
    parent, _, leaf = name.rpartition(".")
    kids = list(model.get_submodule(parent).named_children()) if parent else list(model.named_children())
    out, after = [], False
    for kid, mod in kids:
        full = parent + "." + kid if parent else kid
        if kid == leaf:
            after = True
            continue
        if not after:
            continue
        if any(n == full or n.startswith(full + ".") or full.startswith(n + ".") for n in listed):
            break
        out.append(mod)
    return out


def check(stagecut, mname, model, shape, depth, k, tmp):
    onnx = "samples/onnx/%s.onnx" % mname
    part = os.path.join(tmp, "%s_%d.json" % (mname, depth))
    run(stagecut, "solve", onnx, "-k", str(k), "--align", str(depth), "-o", part)
    ds = run(stagecut, "export", onnx, part, "--format", "deepspeed", "--align", str(depth))
    pt = run(stagecut, "export", onnx, part, "--format", "pytorch", "--align", str(depth))
    names = dict(model.named_modules())
    for split in re.findall(r'^    "([^"]*)": SplitPoint.BEGINNING', pt, re.M):
        if split not in names:
            return "pytorch split point '%s' is no module" % split
    text = ds[ds.index("layers = ["):]
    space = {}
    exec(text, {}, space)
    layers, parts = space["layers"], space["parts"]
    folded = set(re.findall(r'^    "([^"]*)",  # [0-9]+: stage [0-9]+, folded$', ds, re.M))
    listed = [e for e in layers if isinstance(e, str)]
    for a in listed:
        if a not in names:
            return "layer '%s' is no module" % a
        for b in listed:
            if a != b and b.startswith(a + "."):
                return "layer '%s' holds layer '%s'" % (a, b)
    stages = []
    for s in range(len(parts) - 1):
        mods = []
        for e in layers[parts[s]:parts[s + 1]]:
            if isinstance(e, str):
                mods.append(model.get_submodule(e))
                if e in folded:
                    mods.extend(restore_folded(model, e, listed))
            else:
                fn = own_op(e["ops"])
                mods.append(torch.nn.Module())
                mods[-1].forward = fn
        if not mods:
            return "stage %d is empty" % (s + 1)
        stages.append(torch.nn.Sequential(*mods))
    torch.manual_seed(1)
    x = torch.randn(*shape)
    with torch.no_grad():
        want = model(x)
        got = x
        for st in stages:
            got = st(got)
    if got.shape != want.shape:
        return "output shape %s, the model's %s" % (tuple(got.shape), tuple(want.shape))
    diff = (got - want).abs().max().item()
    scale = want.abs().max().item()
    print("%s --align %d -k %d: %d layers in %d stages, %d folded; max difference %.3g of %.3g"
          % (mname, depth, k, len(layers), len(stages), len(folded), diff, scale))
    if not diff <= 1e-4 * max(scale, 1.0):
        return "the stages' output differs from the model's by %.3g (max %.3g)" % (diff, scale)
    return None


def main():
    stagecut = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "stagecut"))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for mname, (build, shape, depths, k) in MODELS.items():
            model = model_of(build)
            for depth in depths:
                try:
                    why = check(stagecut, mname, model, shape, depth, k, tmp)
                except (RuntimeError, ValueError, KeyError, AttributeError) as e:
                    why = "%s: %s" % (type(e).__name__, e)
                if why:
                    print("FAIL %s --align %d -k %d: %s" % (mname, depth, k, why))
                    failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
