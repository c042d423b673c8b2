"""Golden vectors: the file format, provenance, observations and findings, freshness checks,
the export tool, and the topic builders (sets)."""
