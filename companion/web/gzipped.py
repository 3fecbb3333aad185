"""The page's own files sent gzipped to a phone that takes gzip: a third of the bytes.

A phone opening the page fetches about 130 KB of script and style (app.js, style.css...);
gzipped they are about 40 KB, which counts on a busy table's Wi-Fi. Each file is compressed
once per version of it (its path, size and modification time) and kept in memory; the
gzipped answer carries the file's ETag made weak, so a phone's next visit is still answered
"not modified" (RFC 9110: If-None-Match compares weakly). Everything else (the API, its
live feed, the reveal's JPEG, a part of a file asked for by Range) is sent as it is.
"""

from __future__ import annotations

import gzip
import mimetypes
import os
import threading
from typing import Any

from flask import current_app, request
from werkzeug.security import safe_join

# What compresses: text (an SVG too); JPEG and PNG are compressed already.
_TEXT = ("text/", "application/javascript", "application/json", "image/svg+xml")
# A file smaller than this gains too little to be worth it (the page's icon is 269 bytes).
_SMALLEST = 512

_kept: dict[tuple[str, int, int], bytes] = {}
_kept_lock = threading.Lock()


def gzipped(response: Any) -> Any:
    """``after_request``: a static file's whole answer gzipped, where the phone takes gzip
    (and its "not modified" carrying the same weak ETag as the gzipped answer)."""
    if request.endpoint != "static":
        return response
    response.vary.add("Accept-Encoding")  # a cache keeps both answers apart
    name = str((request.view_args or {})["filename"])
    if (
        response.status_code not in (200, 304)
        or request.accept_encodings["gzip"] <= 0
        or not (mimetypes.guess_type(name)[0] or "").startswith(_TEXT)
    ):
        return response
    path = safe_join(str(current_app.static_folder), name)
    if path is None:
        return response
    try:
        found = os.stat(path)
    except OSError:
        return response
    if found.st_size < _SMALLEST:
        return response
    etag, _ = response.get_etag()
    if etag:
        response.set_etag(etag, weak=True)
    if response.status_code == 304:
        return response
    body = _gzip(path, found.st_size, found.st_mtime_ns)
    if body is None:
        if etag:
            response.set_etag(etag)  # sent as it is, under its own strong ETag
        return response
    sent = response.response
    if hasattr(sent, "close"):
        sent.close()  # the file as it was to be sent
    response.direct_passthrough = False
    response.set_data(body)  # also sets Content-Length
    response.headers["Content-Encoding"] = "gzip"
    response.headers.pop("Accept-Ranges", None)  # a range of the gzip is no range of the file
    return response


def _gzip(path: str, size: int, mtime_ns: int) -> bytes | None:
    """The file at ``path`` gzipped, as it is now (None: it changed while being read)."""
    key = (path, size, mtime_ns)
    with _kept_lock:
        body = _kept.get(key)
    if body is not None:
        return body
    with open(path, "rb") as f:
        data = f.read()
    if len(data) != size:
        return None  # changing under us (an update being copied in): sent as it is
    body = gzip.compress(data, compresslevel=9, mtime=0)
    with _kept_lock:
        for old in [k for k in _kept if k[0] == path]:
            del _kept[old]  # an earlier version of the file
        _kept[key] = body
    return body
