#!/usr/bin/python3
"""make_ort_models.py - the small models whose ONNX Runtime profiles are
test data: exported by torch into OUTDIR (default tests/data/ort) WITH their
weights, since onnxruntime runs them.  Called by make_ort_profiles.sh, not
by the build or the tests; needs Debian's python3-torch, python3-torchvision
and python3-onnx (run it with /usr/bin/python3).

- vit_tiny: torchvision's VisionTransformer (the code of vit_b_16) at a tiny
  size: image 32, patch 8, 2 layers, 2 heads, hidden 32, mlp 64, 10 classes.
- encoder_tiny: torch.nn.TransformerEncoder (post-norm, as BERT), 2 layers,
  d_model 32, 2 heads, feed forward 64, 16 tokens, batch first.
- resnet_tiny: a stem and four of torchvision's BasicBlocks (8 to 32
  channels, two with a downsampling 1x1 conv), global pooling and a linear
  layer over a 1 x 3 x 32 x 32 input.

Batch 1, fixed shapes, opset 14, eval mode, torch.manual_seed(0).
"""
import os
import sys

import onnx
import torch
import torchvision
from torchvision.models.resnet import BasicBlock
from torchvision.models.vision_transformer import VisionTransformer

OPSET = 14


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(
            32, 2, dim_feedforward=64, dropout=0.0, batch_first=True
        )
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


def down(cin, cout):
    return torch.nn.Sequential(
        torch.nn.Conv2d(cin, cout, 1, stride=2, bias=False), torch.nn.BatchNorm2d(cout)
    )


class ResNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.relu = torch.nn.ReLU(inplace=True)
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2, downsample=down(8, 16))
        self.layer3 = BasicBlock(16, 16)
        self.layer4 = BasicBlock(16, 32, stride=2, downsample=down(16, 32))
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.pool(x), 1))


def models():
    torch.manual_seed(0)
    yield "vit_tiny", VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
        mlp_dim=64, num_classes=10
    ), torch.randn(1, 3, 32, 32)
    torch.manual_seed(0)
    yield "encoder_tiny", Encoder(), torch.randn(1, 16, 32)
    torch.manual_seed(0)
    yield "resnet_tiny", ResNet(), torch.randn(1, 3, 32, 32)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "tests/data/ort"
    os.makedirs(outdir, exist_ok=True)
    for stem, module, example in models():
        module.eval()
        # BatchNorm statistics that are not the identity
        for m in module.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
        path = os.path.join(outdir, stem + ".onnx")
        # with gradients enabled: under no_grad, eval-mode attention takes a
        # fused fast path that has no ONNX export
        torch.onnx.export(module, (example,), path, input_names=["input"],
                          output_names=["output"], opset_version=OPSET,
                          do_constant_folding=True,
                          training=torch.onnx.TrainingMode.EVAL)
        model = onnx.load(path)
        onnx.checker.check_model(model)
        model.doc_string = ("stagecut test model, made by scripts/make_ort_models.py "
                            "with torch " + torch.__version__ + ", torchvision "
                            + torchvision.__version__ + "; random weights")
        onnx.save(model, path)
        print(path, len(model.graph.node), "nodes", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
