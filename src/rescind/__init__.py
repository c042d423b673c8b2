"""Rescind: model, reference and conformance suite for worker protocol v5 durable operations."""

__version__ = "0.1.0"
