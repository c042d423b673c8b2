"""Input generators and targets of the hardening campaigns (fuzzing, bit flips): the campaigns
in ``benchmarks/`` run them at scale; tests/hardening runs them briefly under Hypothesis."""
