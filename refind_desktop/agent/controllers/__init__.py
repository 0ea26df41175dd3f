"""Stage-1 controllers behind one protocol; `make_controller` picks one by name (`controller` setting)."""

from typing import Any

from ...errors import ConfigError
from .base import CONTROLLERS, Controller, controller_for
from .onesearch import OneSearchController
from .oneshot import OneShotController
from .small import SmallController

__all__ = [
    "CONTROLLERS",
    "Controller",
    "OneSearchController",
    "OneShotController",
    "SmallController",
    "controller_for",
    "make_controller",
]


def make_controller(name: str, **kw: Any) -> Controller:
    """A controller by name ("small", "reader", "oneshot", "one-search")."""
    kinds = {
        "small": SmallController,
        "reader": SmallController.reader,
        "oneshot": OneShotController,
        "one-search": OneSearchController,
    }
    if name not in kinds:
        raise ConfigError(f"unknown controller {name!r}; choose one of {', '.join(kinds)}")
    return kinds[name](**kw)
