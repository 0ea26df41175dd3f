"""Stage-1 controllers behind one protocol; `make_controller` picks one by name (`controller` setting)."""

from .base import CONTROLLERS, Controller, controller_for, make_controller
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
