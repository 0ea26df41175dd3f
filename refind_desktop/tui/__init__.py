"""The Textual front end (the only package that imports textual): `RefindApp` and its back-end factory."""

from .app import RefindApp, default_backend_factory

__all__ = ["RefindApp", "default_backend_factory"]
