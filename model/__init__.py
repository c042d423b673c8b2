"""Abstract transition-system model of the protocol, with invariants proven by z3."""
