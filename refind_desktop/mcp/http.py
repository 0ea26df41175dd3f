"""The MCP server on streamable HTTP: address parsing, the loopback rule and bearer-token checking.

`refind mcp --http [HOST:]PORT` binds 127.0.0.1 unless told otherwise; any other address needs a token
(`--token` / REFIND_MCP_TOKEN), and when a token is set every request must carry
`Authorization: Bearer TOKEN` (401 otherwise). The SDK's Starlette app is wrapped by a small ASGI middleware.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import sys

from ..errors import ConfigError

DEFAULT_HOST = "127.0.0.1"
MCP_PATH = "/mcp"
TOKEN_ENV = "REFIND_MCP_TOKEN"


def parse_address(value: str) -> tuple[str, int]:
    """'PORT', ':PORT', 'HOST:PORT' or '[V6]:PORT' → (host, port); the host defaults to loopback."""
    text = value.strip()
    host, _, port = text.rpartition(":") if ":" in text else ("", "", text)
    host = host.strip("[]") or DEFAULT_HOST
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 0 < number < 65536:
        raise ConfigError(f"--http takes [HOST:]PORT with a port 1-65535, e.g. 127.0.0.1:8765; got {value!r}")
    return host, number


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None) -> None:
    """Refuse to serve the archive beyond this machine without a token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"binding to {host} would let other machines read your chat history; pass --token TOKEN or set "
            f"{TOKEN_ENV} (every request must then carry 'Authorization: Bearer TOKEN'), or bind 127.0.0.1"
        )


class BearerToken:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401; lifespan passes."""

    def __init__(self, app, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps(
                    {"error": "unauthorized", "error_description": "send Authorization: Bearer <token>"}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="refind"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server, host: str, token: str | None):
    """The SDK's streamable HTTP Starlette app (DNS-rebinding checks on for loopback), token-guarded if set."""
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    return BearerToken(app, token) if token else app


def serve_http(server, host: str, port: int, token: str | None) -> None:
    """Serve until interrupted."""
    import uvicorn

    check_exposure(host, token)
    app = http_app(server, host, token)
    where = f"[{host}]" if ":" in host else host
    auth = "bearer token required" if token else "no token (loopback only)"
    print(f"refind mcp: serving on http://{where}:{port}{MCP_PATH} ({auth})", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")).run()
