"""The small networks the reader runs (``vision.nets``) after ONNX export.

- The die locator: a fully convolutional net that sees the photograph scaled so a die is
  about ``DETECT_DIE_PX`` pixels across and predicts, at a quarter of that scale, a
  heatmap of die centres, the log of each die's size and the centre's sub-cell offset.
- The face reader: a small classifier of one die's crop (``CROP_PX`` square, the die
  about ``CROP_DIE_PX`` across): classes 0..5 are 1..6 pips seen, 6 is "not a die".
- The second reader: the face reader's net ``SECOND_WIDTH`` times as wide, which reads
  again the dice the face reader is unsure of.

The geometry constants live in ``vision.nets``, shared with the reader.
"""

from __future__ import annotations

import importlib
from typing import Any

from vision.nets import NOT_A_DIE

# torch is a development dependency only: typed as Any so mypy passes without it.
torch: Any = importlib.import_module("torch")
nn: Any = importlib.import_module("torch.nn")


def _conv(c_in: int, c_out: int, stride: int = 1, dilation: int = 1) -> list[Any]:
    return [
        nn.Conv2d(c_in, c_out, 3, stride, dilation, dilation, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    ]


def make_locator() -> Any:
    """Die-centre heatmap net: 3xHxW in, 4x(H/4)x(W/4) out (heat logit, log size, dx, dy)."""
    return nn.Sequential(
        *_conv(3, 16, 2),
        *_conv(16, 24, 2),
        *_conv(24, 24),
        # Dilations grow the receptive field past a whole die and its neighbours cheaply.
        *_conv(24, 32, dilation=2),
        *_conv(32, 32, dilation=4),
        *_conv(32, 32),
        nn.Conv2d(32, 4, 1),
    )


# The second reader: the face reader's net, its channels this many times as many.
SECOND_WIDTH = 1.5
# The face readers' dropout before their last layer (not in the exported net).
_DROPOUT = 0.1


def make_face_reader(width: float = 1.0) -> Any:
    """Crop classifier: 3 x CROP_PX x CROP_PX in, 7 logits out (1..6 pips, not a die).

    ``width`` scales every layer's channels (1.0: 16-32-48-64-128, the shipped reader).
    """
    c1, c2, c3, c4, c5 = (round(c * width) for c in (16, 32, 48, 64, 128))
    return nn.Sequential(
        *_conv(3, c1),
        nn.MaxPool2d(2),
        *_conv(c1, c2),
        nn.MaxPool2d(2),
        *_conv(c2, c3),
        *_conv(c3, c4),
        nn.MaxPool2d(2),
        *_conv(c4, c5),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(_DROPOUT),
        nn.Linear(c5, NOT_A_DIE + 1),
    )


def face_reader_from_onnx(path: str) -> Any:
    """A face reader (or second reader) as exported, to train further: each convolution's
    BatchNorm is folded into it by the export, so the net has none (a convolution with a bias
    instead), and the same dropout before its last layer."""
    onnx = importlib.import_module("onnx")
    numpy_helper = importlib.import_module("onnx.numpy_helper")
    graph = onnx.load(path).graph
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in graph.initializer}
    layers: list[Any] = []
    for node in graph.node:
        if node.op_type == "Conv":
            w, b = (weights[name] for name in node.input[1:3])
            conv = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], padding=w.shape[2] // 2)
            conv.weight.data, conv.bias.data = w, b
            layers.append(conv)
        elif node.op_type == "Relu":
            layers.append(nn.ReLU(inplace=True))
        elif node.op_type == "MaxPool":
            layers.append(nn.MaxPool2d(2))
        elif node.op_type == "GlobalAveragePool":
            layers.append(nn.AdaptiveAvgPool2d(1))
        elif node.op_type == "Flatten":
            layers += [nn.Flatten(), nn.Dropout(_DROPOUT)]
        elif node.op_type == "Gemm":
            w, b = (weights[name] for name in node.input[1:3])
            linear = nn.Linear(w.shape[1], w.shape[0])
            linear.weight.data, linear.bias.data = w, b
            layers.append(linear)
        else:
            raise ValueError(f"{path}: a {node.op_type} node: not a face reader this can train")
    return nn.Sequential(*layers)
