"""Every decoder, the driver and the CLI refuse mutated vector texts with typed errors only,
and a definite refusal changes no state: the generators and targets of the fuzzing campaign
(benchmarks/fuzz_campaign.py, a million inputs), driven by Hypothesis. The ``ci`` profile
runs a few dozen inputs per target; ``thorough`` runs thousands."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.hardening import fuzzing

TARGETS = {target.name: target for target in fuzzing.targets()}


@pytest.mark.parametrize("name", sorted(TARGETS))
@given(rng=st.randoms(use_true_random=False))
def test_refusals_are_typed_and_change_nothing(name: str, rng: random.Random) -> None:
    target = TARGETS[name]
    data = target.generate(rng)
    outcome, findings = target.run(data)
    assert not findings, findings
    assert outcome == "accepted" or outcome.startswith("refused:")


def test_every_decoder_family_is_a_target() -> None:
    expected = {
        "canonical-input",
        "journal-codec",
        "ledger-codec",
        "worker-message",
        "frames.decode",
        "frames.open",
        "frames.bootstrap",
        "grants.grant",
        "grants.attenuation",
        "grants.manifest",
        "grants.manifest-attenuation",
        "storage.envelope",
        "storage.store",
        "worker.session",
        "saga.documents",
        "driver.requests",
        "cli",
    }
    assert set(TARGETS) == expected


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_seed_pools_reach_acceptance(name: str) -> None:
    """A target whose seeds never decode would only ever test the first parse error."""
    target = TARGETS[name]
    rng = random.Random(5)
    outcomes = set()
    for _ in range(3000):
        outcomes.add(target.run(target.generate(rng))[0])
        if "accepted" in outcomes:
            break
    assert "accepted" in outcomes, outcomes


def test_an_untyped_failure_is_reported() -> None:
    """The classifier itself: a decoder raising a bare exception is a finding."""

    def broken(data: bytes) -> None:
        raise KeyError(data)

    target = fuzzing.BytesTarget("broken", fuzzing.journal_seeds, broken)
    outcome, findings = target.run(b"{}")
    assert outcome == "untyped"
    assert findings[0].kind == "untyped" and "KeyError" in findings[0].detail
