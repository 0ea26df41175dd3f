"""`refind mcp`: serve the archive to MCP clients (Claude Code, Claude Desktop, Cursor, ...) on stdio or HTTP."""

from __future__ import annotations

import argparse
import os


def register(sub: argparse._SubParsersAction) -> None:
    """Add `mcp`."""
    p = sub.add_parser(
        "mcp",
        help="serve your chat history to MCP clients (stdio; --http for streamable HTTP)",
        description="Model Context Protocol server: tools search, show, ask, stats; resources "
        "refind://session/{id}. Read-only unless --allow-ingest. Nothing leaves this machine unless you "
        "bind --http to another address (any but 127.0.0.1, ::1 and localhost needs a token). Secrets in "
        "the chats are sent as [redacted: KIND] markers (setting redact).",
    )
    p.add_argument(
        "--http",
        default=None,
        metavar="[HOST:]PORT",
        help="serve streamable HTTP on HOST:PORT (host default 127.0.0.1) instead of stdio",
    )
    p.add_argument(
        "--token",
        default=None,
        help="bearer token every HTTP request must carry (default: $REFIND_MCP_TOKEN); "
        "required to bind a non-loopback address",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="with --http: another Host name clients use to reach this server (repeatable); the bound "
        "address (and, for 0.0.0.0, this machine's names) is always accepted, any other Host gets 421",
    )
    p.add_argument(
        "--allow-ingest",
        action="store_true",
        help="add an `ingest` tool limited to the configured chat folder (otherwise the server is read-only)",
    )
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Run until the client disconnects (stdio) or until interrupted (HTTP)."""
    from ..mcp import build_server
    from .common import services

    if args.token and not args.http:
        from ..errors import ConfigError

        raise ConfigError(
            "--token applies to --http only; stdio needs none (the client starts the server itself)"
        )
    token = args.token or os.environ.get("REFIND_MCP_TOKEN") or None
    address = None
    if args.http:
        from ..mcp.http import check_exposure, parse_address

        address = parse_address(args.http)
        check_exposure(address[0], token)
    svc = services()
    try:
        server = build_server(svc, allow_ingest=args.allow_ingest)
        if address is None:
            server.run("stdio")
        else:
            from ..mcp.http import serve_http

            serve_http(server, address[0], address[1], token, tuple(args.allow_host))
    finally:
        svc.close()
    return 0
