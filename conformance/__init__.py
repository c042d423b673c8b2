"""Conformance suite: golden vectors, the driver protocol and the runner."""
