"""The dice reader: frame sources, the reader's stages, the simulator, calibration and the
measuring commands (see the README's "The dice reader")."""

import os

# ONNX Runtime (1.29 and later) otherwise sends usage telemetry from Linux, and keeps a device
# identifier under ~/.cache, from the moment it is imported: a referee at a games table has no
# business calling out. Set before anything here imports it; a user's own setting is kept.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
