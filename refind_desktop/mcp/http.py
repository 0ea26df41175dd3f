"""The MCP server on streamable HTTP: address parsing, the one trust rule, Host/Origin and bearer-token checks.

`refind mcp --http [HOST:]PORT` binds 127.0.0.1 unless told otherwise. The trust rule: only 127.0.0.1, ::1
and localhost are served without a token; every other address (127.0.0.2 and the rest of 127.0.0.0/8
included: other users' programs and containers can reach them) needs one (`--token` / REFIND_MCP_TOKEN),
and when a token is set every request must carry `Authorization: Bearer TOKEN` (the scheme in any case;
401 otherwise). On every bind the SDK's DNS-rebinding checks are on: the Host header must name the bound
address (for 0.0.0.0 / ::, this machine's names and loopback) or a name given with `--allow-host`, and an
Origin header, when sent, the same host (421 / 403 otherwise). The token check is a small ASGI middleware.
"""

from __future__ import annotations

import hmac
import json
import socket
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


TOKEN_FREE_HOSTS = ("127.0.0.1", "::1", "localhost")
"""The only binds served without a token."""
WILDCARDS = ("0.0.0.0", "::")


def is_loopback(host: str) -> bool:
    """True for the binds that need no token: 127.0.0.1, ::1 and localhost (not the rest of 127.0.0.0/8)."""
    return host in TOKEN_FREE_HOSTS


def check_exposure(host: str, token: str | None) -> None:
    """Refuse to serve the archive on any address but 127.0.0.1, ::1 or localhost without a token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"binding to {host} would let other programs or machines read your chat history; pass --token "
            f"TOKEN or set {TOKEN_ENV} (every request must then carry 'Authorization: Bearer TOKEN'), or "
            "bind 127.0.0.1, ::1 or localhost"
        )


def _as_host(name: str) -> str:
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def allowed_hosts(host: str, extra: tuple[str, ...] = ()) -> list[str]:
    """Host header values (each with any port) a request may carry on this bind: the bound address, loopback
    names on a loopback bind, this machine's names and addresses on a wildcard bind, and `extra`."""
    names = {host}
    if is_loopback(host) or host in WILDCARDS:
        names |= set(TOKEN_FREE_HOSTS)
    if host in WILDCARDS:
        machine = {socket.gethostname(), socket.getfqdn()}
        names |= machine
        for name in machine:
            try:
                names |= {info[4][0] for info in socket.getaddrinfo(name, None)}
            except OSError:
                pass
    names |= set(extra)
    names -= set(WILDCARDS)
    return sorted(_as_host(n) for n in names if n)


def transport_security(host: str, extra: tuple[str, ...] = ()):
    """The SDK's DNS-rebinding settings for this bind: Host and Origin checked on every address."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = allowed_hosts(host, extra)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for name in hosts for h in (name, f"{name}:*")],
        allowed_origins=[
            o
            for name in hosts
            for scheme in ("http", "https")
            for o in (f"{scheme}://{name}", f"{scheme}://{name}:*")
        ],
    )


class BearerToken:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401; lifespan passes."""

    def __init__(self, app, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    def accepts(self, header: bytes) -> bool:
        """`Bearer TOKEN` with the scheme in any case (RFC 7235), the token compared in constant time."""
        scheme, _, given = header.strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.expected)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not self.accepts(given):
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


def http_app(server, host: str, token: str | None, extra_hosts: tuple[str, ...] = ()):
    """The SDK's streamable HTTP Starlette app with Host/Origin checks for this bind, token-guarded if set."""
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, host=host, transport_security=transport_security(host, extra_hosts)
    )
    return BearerToken(app, token) if token else app


def serve_http(server, host: str, port: int, token: str | None, extra_hosts: tuple[str, ...] = ()) -> None:
    """Serve until interrupted."""
    import uvicorn

    check_exposure(host, token)
    app = http_app(server, host, token, extra_hosts)
    where = _as_host(host)
    auth = "bearer token required" if token else "no token (127.0.0.1, ::1 and localhost only)"
    hosts = ", ".join(allowed_hosts(host, extra_hosts))
    print(
        f"refind mcp: serving on http://{where}:{port}{MCP_PATH} ({auth}; Host accepted: {hosts})",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")).run()
