"""Transports: HookServer (HTTP or HTTPS), serve_stdio (one request per
process) and serve_lines (newline-delimited, for a kept-alive executor)."""

import hmac
import ipaddress
import json
import os
import ssl as _ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional

from .base import LifecycleHooks, handle_request

__all__ = ["HookServer", "serve_stdio", "serve_lines", "KEEPALIVE_ENV"]

#: hook-loop sets this variable (to "1") in a kept-alive executor's environment:
#: the executor then answers one request per line until its stdin closes.
KEEPALIVE_ENV = "HOOK_LOOP_KEEPALIVE"

MAX_BODY = 1 << 20


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HookServer:
    """Serve a LifecycleHooks over HTTP: POST a JSON-RPC request to any path,
    GET /health answers {"ok": true}.

    ``token_env`` names the environment variable holding the bearer token; it is
    read at every request, and a request without ``Authorization: Bearer <it>``
    is refused (401). ``ssl_context`` serves HTTPS. Plain HTTP on a host other
    than loopback is allowed (for a TLS proxy in front) with a warning.
    """

    def __init__(self, hooks: LifecycleHooks, host: str = "127.0.0.1", port: int = 8000,
                 token_env: Optional[str] = None, ssl_context: Optional[_ssl.SSLContext] = None):
        self.hooks = hooks
        self.token_env = token_env
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt, *args):  # quiet: a hook's stderr is not a log
                pass

            def _send(self, code, body: bytes, close: bool = False):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if close:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                if self.path.split("?")[0] == "/health":
                    self._send(200, b'{"ok":true}')
                else:
                    self._send(404, b'{"error":"not found"}')

            def do_POST(self):
                # The body is read before any answer, a refusal included: left
                # unread it would be parsed as the next request on a kept-alive
                # connection. One that cannot be read safely ends the connection.
                try:
                    n = int(self.headers.get("Content-Length", "0"))
                except ValueError:
                    n = -1
                if n < 0 or n > MAX_BODY:
                    self._send(413, b'{"error":"body too large or without Content-Length"}', close=True)
                    return
                body = self.rfile.read(n)
                if not owner._authorized(self.headers.get("Authorization", "")):
                    self._send(401, b'{"error":"unauthorized"}')
                    return
                self._send(200, handle_request(owner.hooks, body))

        if not _is_loopback(host) and ssl_context is None:
            print("hook_loop_hooks: serving plain HTTP on %s; put TLS in front of it "
                  "(hook-loop calls http:// on loopback only)" % host, file=sys.stderr)
        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        if ssl_context is not None:
            self.httpd.socket = ssl_context.wrap_socket(self.httpd.socket, server_side=True)

    def _authorized(self, header: str) -> bool:
        if not self.token_env:
            return True
        token = os.environ.get(self.token_env, "")
        if not token:
            return False  # a server whose token is unset refuses, never serves open
        return hmac.compare_digest(header.encode(), ("Bearer " + token).encode())

    @property
    def server_address(self):
        """(host, port) actually bound — port 0 picks a free one."""
        return self.httpd.server_address

    def serve_forever(self):
        """Serve until shutdown() is called (from another thread) or interrupted."""
        try:
            self.httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.httpd.server_close()

    def shutdown(self):
        self.httpd.shutdown()


def serve_lines(hooks: LifecycleHooks, stdin=None, stdout=None):
    """Answer one request per line until stdin closes: a kept-alive executor."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    for line in stdin:
        if not line.strip():
            continue
        stdout.write(handle_request(hooks, line) + b"\n")
        stdout.flush()


def serve_stdio(hooks: LifecycleHooks, stdin=None, stdout=None):
    """Answer the request on stdin on stdout: a command (or path) executor.

    Started by hook-loop as a kept-alive executor (HOOK_LOOP_KEEPALIVE=1 in the
    environment) it serves one request per line instead, until stdin closes.
    """
    if os.environ.get(KEEPALIVE_ENV) == "1":
        serve_lines(hooks, stdin, stdout)
        return
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    stdout.write(handle_request(hooks, stdin.read()) + b"\n")
    stdout.flush()
