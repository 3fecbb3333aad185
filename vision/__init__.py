"""The dice reader: frame sources, the reader's stages, the simulator, calibration and the
measuring commands (see the README's "The dice reader")."""
