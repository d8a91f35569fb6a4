"""The local review server: the page at /, one decision per POST to /decide, bound to 127.0.0.1.

Each decision is written to the decisions file before the answer goes back, so a page that shows a
decision as saved never loses it. Only the page this server handed out can post: it carries a random
token, requests whose Host is not this loopback address are refused (DNS rebinding), and no CORS headers
are sent, so other sites' pages cannot post either.
"""

from __future__ import annotations

import json
import secrets
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from robustqa.errors import OutputError, RobustQAError
from robustqa.review.decisions import DecisionLog
from robustqa.review.page import render_page

HOST = "127.0.0.1"
_MAX_BODY = 64 * 1024


class ReviewServer(ThreadingHTTPServer):
    """Serves one review set to one reviewer; `url` says where."""

    daemon_threads = True

    def __init__(self, log: DecisionLog, port: int = 0) -> None:
        self.log = log
        self.token = secrets.token_urlsafe(24)
        try:
            super().__init__((HOST, port), _Handler)
        except OSError as error:
            raise OutputError(
                f"cannot serve on {HOST}:{port} ({error.strerror}); choose another port, or 0 for any free one"
            ) from None

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def page(self) -> str:
        log = self.log
        return render_page(
            log.review_set,
            mode="server",
            reviewer=log.current.reviewer,
            decisions=log.current,
            token=self.token,
            saved_to=str(log.path),
        )

    def close(self) -> None:
        """Stop listening, after any decision being written is on disk."""
        self.server_close()
        with self.log.lock:
            pass


class _Handler(BaseHTTPRequestHandler):
    server: ReviewServer
    server_version = "robustqa-review"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows what the command prints, not a request log."""

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

    def _trusted_host(self) -> bool:
        host = self.headers.get("Host", "")
        return host in (f"{HOST}:{self.server.port}", f"localhost:{self.server.port}")

    def do_GET(self) -> None:
        if not self._trusted_host():
            self._json(403, {"error": "unknown host"})
        elif self.path in ("/", "/index.html"):
            self._send(200, self.server.page().encode("utf-8"), "text/html; charset=utf-8")
        elif self.path == "/favicon.ico":
            self._send(204, b"", "image/x-icon")
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        if not self._trusted_host() or self.headers.get("X-Review-Token") != self.server.token:
            self._json(403, {"error": "this page is not from this review server; reload it"})
            return
        if self.path != "/decide":
            self._json(404, {"error": "not found"})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length <= 0 or length > _MAX_BODY:
            self._json(400, {"error": "a decision is a small JSON object"})
            return
        try:
            request = json.loads(self.rfile.read(length).decode("utf-8"))
            item_id, decision, reason = str(request["id"]), str(request["decision"]), request.get("reason")
        except (ValueError, KeyError, TypeError):
            self._json(400, {"error": "a decision needs 'id' and 'decision'"})
            return
        try:
            made = self.server.log.decide(item_id, decision, reason)
        except RobustQAError as error:
            self._json(400 if not isinstance(error, OutputError) else 500, {"error": str(error)})
            return
        self._json(200, {"decision": made.to_dict(), "done": self.server.log.done, "total": self.server.log.total})
