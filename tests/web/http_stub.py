"""A local HTTP server for tests that post to the outside world (issue 32: the push service, a webhook's
receiver): it records every POST and answers with the status its test chooses."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from requests.structures import CaseInsensitiveDict


@dataclass
class Received:
    """One POST the server got: its path, headers (looked up in any case) and body."""

    path: str
    headers: CaseInsensitiveDict[str]
    body: bytes


@contextmanager
def http_stub(answer: Callable[[Received], int]) -> Iterator[str]:
    """Serve on a free port of 127.0.0.1 while the block runs; every POST is passed to ``answer``, whose
    result is the HTTP status sent back (with an empty body).

    Yields:
        The server's origin, ``"http://127.0.0.1:<port>"``.
    """

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            headers: CaseInsensitiveDict[str] = CaseInsensitiveDict(dict(self.headers.items()))
            self.send_response(answer(Received(self.path, headers, body)))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # keep the test output quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
