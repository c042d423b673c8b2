"""Sources of checks beyond the vectors: model proofs, refinement of the reference against the
model, the canonical fast path, exploration."""
