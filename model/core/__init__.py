"""The protocol model and what every proof group shares: the z3 vocabulary (``logic``), the
transition system (``system``) and its actions (``actions``), induction and bounded search
(``prover``), the invariant shape (``invariant``), numbered counterexample traces
(``counterexample``) and the interface to ``rescind prove`` (``proof_check``)."""
