"""Sans-IO reference implementation of worker protocol v5 durable operations (profile splash-v5)."""
