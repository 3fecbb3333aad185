"""QR codes of the page's address, drawn by segno (pure Python, no image library)."""

from __future__ import annotations

import io
from functools import lru_cache


@lru_cache(maxsize=8)
def qr_svg(text: str) -> bytes:
    """``text`` as a QR code in SVG, dark on light (phones' cameras read that best).

    Drawn once for each address: drawing it was about a third of the table's work for a
    phone opening the page (6 ms here, session 79's audit)."""
    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(
        out, kind="svg", scale=6, border=2, dark="#000", light="#fff", xmldecl=False
    )
    return out.getvalue()


def qr_text(text: str) -> str:
    """``text`` as a QR code in text blocks, for a terminal (``dudo serve`` prints it)."""
    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()
