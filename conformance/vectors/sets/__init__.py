"""One module per vector topic; each exposes ``build() -> VectorFile``. The list of topics is
``rescind.conformance.vectors.sets.topics.TOPICS`` (kept out of this package's ``__init__`` so
that importing one topic's helpers does not build the others)."""
