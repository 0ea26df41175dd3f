"""Importable test helpers (builders, scripted responders, waits), one module per test area.

Fixtures live in the conftest.py files; what a test module imports comes from here, never from a
conftest (two conftest modules of the same name clash when their folders run in one pytest command).
pyproject's `pythonpath = ["tests"]` puts this package on the path.
"""
