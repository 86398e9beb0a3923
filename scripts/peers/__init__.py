"""Helpers for scripts/bench_peers.py (peer-tuner comparison). Not part of the product."""
