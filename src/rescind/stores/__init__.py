"""Durable stores: the I/O that wraps the sans-IO reference from outside.

The reference keeps the storage rules pure (``rescind.reference.storage.store``) and an
in-memory backend for unit tests; a store here applies those same rules to real media.
"""
