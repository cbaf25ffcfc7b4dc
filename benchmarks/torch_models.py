"""The CNN benchmark's models in plain PyTorch (torchvision's architectures: ResNet-18/50,
MobileNetV2, ShuffleNetV2 x1.0), for the PyTorch child of benchmarks/paddle_side.py, so that
a torch install without a matching torchvision can be measured. Random weights."""
from __future__ import annotations

import torch
from torch import nn


def _conv_bn(cin, cout, k, stride=1, groups=1, act=nn.ReLU):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, act(inplace=True)) if act else nn.Sequential(*layers)


class _Block(nn.Module):
    def __init__(self, cin, width, stride, bottleneck):
        super().__init__()
        cout = width * (4 if bottleneck else 1)
        if bottleneck:
            self.body = nn.Sequential(_conv_bn(cin, width, 1), _conv_bn(width, width, 3, stride),
                                      _conv_bn(width, cout, 1, act=None))
        else:
            self.body = nn.Sequential(_conv_bn(cin, width, 3, stride),
                                      _conv_bn(width, cout, 3, act=None))
        self.short = (_conv_bn(cin, cout, 1, stride, act=None) if stride != 1 or cin != cout
                      else nn.Identity())

    def forward(self, x):
        return torch.relu(self.body(x) + self.short(x))


def resnet(depths, bottleneck):
    layers, cin = [_conv_bn(3, 64, 7, 2), nn.MaxPool2d(3, 2, 1)], 64
    for stage, (width, depth) in enumerate(zip((64, 128, 256, 512), depths)):
        for block in range(depth):
            layers.append(_Block(cin, width, 2 if stage and not block else 1, bottleneck))
            cin = width * (4 if bottleneck else 1)
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000))


class _Inverted(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = [_conv_bn(cin, hidden, 1, act=nn.ReLU6)] if expand != 1 else []
        layers += [_conv_bn(hidden, hidden, 3, stride, groups=hidden, act=nn.ReLU6),
                   _conv_bn(hidden, cout, 1, act=None)]
        self.body, self.residual = nn.Sequential(*layers), stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


def mobilenet_v2():
    layers, cin = [_conv_bn(3, 32, 3, 2, act=nn.ReLU6)], 32
    for expand, cout, repeat, stride in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2),
                                         (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                                         (6, 320, 1, 1)):
        for i in range(repeat):
            layers.append(_Inverted(cin, cout, stride if i == 0 else 1, expand))
            cin = cout
    return nn.Sequential(*layers, _conv_bn(cin, 1280, 1, act=nn.ReLU6),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1280, 1000))


class _Shuffle(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        half = cout // 2
        self.stride = stride
        self.left = (nn.Sequential(_conv_bn(cin, cin, 3, stride, cin, act=None),
                                   _conv_bn(cin, half, 1)) if stride == 2 else None)
        right_in = cin if stride == 2 else half
        self.right = nn.Sequential(_conv_bn(right_in, half, 1),
                                   _conv_bn(half, half, 3, stride, half, act=None),
                                   _conv_bn(half, half, 1))

    def forward(self, x):
        if self.stride == 2:
            out = torch.cat([self.left(x), self.right(x)], 1)
        else:
            a, b = x.chunk(2, dim=1)
            out = torch.cat([a, self.right(b)], 1)
        n, c, h, w = out.shape
        return out.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)


def shufflenet_v2_x1_0():
    layers, cin = [_conv_bn(3, 24, 3, 2), nn.MaxPool2d(3, 2, 1)], 24
    for cout, repeat in ((116, 4), (232, 8), (464, 4)):
        for i in range(repeat):
            layers.append(_Shuffle(cin, cout, 2 if i == 0 else 1))
            cin = cout
    return nn.Sequential(*layers, _conv_bn(cin, 1024, 1), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(1024, 1000))


MODELS = {"resnet18": lambda: resnet((2, 2, 2, 2), False),
          "resnet50": lambda: resnet((3, 4, 6, 3), True),
          "mobilenet_v2": mobilenet_v2, "shufflenet_v2_x1_0": shufflenet_v2_x1_0}
