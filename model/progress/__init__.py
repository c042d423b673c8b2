"""Progress (PG rules): the fair restriction of the safety model that follows upstream's
session, its profiles and lemmas, ranking proofs and lasso counterexamples, and the
``rescind prove`` checks of group ``progress``."""
