"""Development-only training of the reader's two small models (needs torch; not at run time).

Retrain with ``python -m vision.training.train --data ../shared/datasets/dice-top-dev``.
"""
