"""Synthetic session writers, one module per group of coding agents, for agent_readers_bench.py."""
