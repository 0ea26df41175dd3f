"""`refind mcp`: the archive as a Model Context Protocol server (front end, like cli/ and tui/).

Needs the `mcp` extra (`pip install "refind-desktop[mcp]"`); the SDK is imported by `server` and `http` only.
"""

from __future__ import annotations

from typing import Any

from ..errors import MissingDependencyError


def build_server(*args: Any, **kw: Any) -> Any:
    """The MCP server over one Services (see mcp/server.py); MissingDependencyError without the SDK."""
    try:
        from .server import build_server as build
    except ImportError as exc:
        if exc.name and exc.name.split(".")[0] in ("mcp", "mcp_types", "anyio", "pydantic", "starlette"):
            raise MissingDependencyError(
                f'`refind mcp` needs the MCP SDK: pip install "refind-desktop[mcp]" ({exc})'
            ) from exc
        raise
    return build(*args, **kw)


__all__ = ["build_server"]
