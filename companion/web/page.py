"""The phone page itself and the QR code that brings another phone to it."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template, request

from companion.web.auth import csrf_token, has_control
from companion.web.qr import qr_svg

bp = Blueprint("page", __name__)


def page_address() -> str:
    """The address other phones should open: ``PUBLIC_URL`` (an address, or a function that
    finds it now: the Pi's address can change over months of running), else the one asked
    for."""
    configured = current_app.config.get("PUBLIC_URL")
    if callable(configured):
        configured = configured()
    return str(configured) if configured else request.host_url


@bp.get("/")
def index() -> str:
    """The live page: everyone sees the table; PIN holders also get the controls."""
    return render_template(
        "index.html",
        csrf=csrf_token(),
        control=has_control(),
        sim=current_app.config.get("SIM_DRIVER") is not None,
        address=page_address(),
        alive_s=float(current_app.config["SSE_KEEPALIVE_S"]),
    )


@bp.get("/qr.svg")
def qr() -> Response:
    """The page's address as a QR code (an SVG), to join from another phone."""
    return Response(
        qr_svg(page_address()), mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"}
    )
