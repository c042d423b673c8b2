"""Interpreters of the conformance step vocabulary: traces, scenarios, documents and the
test doubles they drive. Vectors and the reference driver speak through these; the reference
itself keeps protocol semantics only."""
