"""Safety: the protocol invariants proven on the model of ``core``, the broken variants that
show the proofs are not vacuous, and the ``rescind prove`` checks of group ``protocol``."""
