"""Shared pieces of the Splash upstream-test ports (topic ``splash-upstream-tests``).

A port is one upstream test replayed in the input vocabulary of the topic that owns its area:
a row of ``conformance/cases/splash-upstream-tests.toml``. Its author writes the outcome the
upstream test asserts for every step (``ok`` or an error code) and the values it asserts
(``with.asserts``, see
``rescind.conformance.cases.asserts``); the exported expectation is the reference's answer, and
a port whose answer differs from the upstream assertion is never exported (``PortDisagrees``
stops the build). The builders below turn a row of each kind into its vector.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTableError, asserts
from rescind.conformance.interpreters import storage_harness
from rescind.conformance.interpreters.worker_scenario import run_scenario
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._tabled import RowToVector
from rescind.conformance.vectors.sets._trace_cases import outcome_code
from rescind.reference.errors import RescindError

OK = "ok"


class PortDisagrees(AssertionError):
    """The reference's answer differs from what the upstream test asserts."""


def trace_port(to_vector: RowToVector) -> RowToVector:
    """A tabled trace port: ``to_vector`` (a topic's trace builder) refuses a row whose step
    outcomes differ from the ones it states; then every ``with.asserts`` fragment (the values
    the upstream test asserts, ``rescind.conformance.cases.asserts``) must hold of the step
    results (by index; ``outcomes`` is the list of whole step outcomes, with error details).
    Either refusal is a ``PortDisagrees``."""

    def port_vector(row: CaseRow) -> VectorTest:
        try:
            test = to_vector(row)
        except CaseTableError as error:
            raise PortDisagrees(str(error)) from None
        outcomes = test.expected["steps"]
        results: dict[int | str, Any] = {i: step.get("result") for i, step in enumerate(outcomes)}
        results["outcomes"] = outcomes
        failed = asserts.broken(row.extra.get("asserts", ()), results)
        if failed:
            raise PortDisagrees(f"{row.id}: the reference breaks {'; '.join(failed)}")
        return test

    return port_vector


def worker_port(row: CaseRow) -> VectorTest:
    """A tabled worker-session port (a worker scenario of topic session-scenarios). Every step
    states the outcome upstream asserts (``expect``), ``with.open`` the error it asserts for
    opening the session (none: it opens), and ``with.asserts`` the values it asserts, picked
    from the step outcomes by index, from ``final`` (the store at the end) and from ``open``."""
    scenario = row.input["scenario"]
    stated = scenario["steps"]
    spec = {
        "setup": dict(scenario.get("setup", {})),
        "steps": [
            {key: value for key, value in step.items() if key != "expect"} for step in stated
        ],
    }
    expected = run_scenario(spec)
    opened = expected.get("open", {}).get("error")
    if opened != row.extra.get("open"):
        raise PortDisagrees(f"{row.id}: upstream open {row.extra.get('open')}, reference {opened}")
    outcomes = [outcome_code(step) for step in expected["steps"]]
    intended = [step["expect"] for step in stated]
    if outcomes != intended:
        raise PortDisagrees(f"{row.id}: upstream asserts {intended}, reference {outcomes}")
    results: dict[int | str, Any] = dict(enumerate(expected["steps"]))
    results.update(final=expected["final"], open=expected.get("open", {}))
    failed = asserts.broken(row.extra.get("asserts", ()), results)
    if failed:
        raise PortDisagrees(f"{row.id}: the reference breaks {'; '.join(failed)}")
    return VectorTest(
        row.id,
        row.rule,
        row.comment,
        {"kind": "worker", "scenario": spec},
        expected,
        cases.intended(row, "valid"),
        row.flags,
        provenance=row.provenance,
    )


Answer = Callable[[Mapping[str, Any]], tuple[str, dict[str, Any]]]
"""A single operation's result (``valid``, ``invalid``, ...) and expected value."""


def raising(compute: Callable[[Mapping[str, Any]], dict[str, Any]]) -> Answer:
    """An ``Answer`` of an operation that refuses its input with a ``RescindError``."""

    def answer(body: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        try:
            return "valid", compute(body)
        except RescindError as error:
            return "invalid", {"error": error.code}

    return answer


def single_port(answer: Answer) -> RowToVector:
    """A tabled single-operation port: ``with.expect`` is the outcome upstream asserts (``ok``
    or an error code), ``with.asserts`` the values it asserts, picked from the members of the
    answer; the reference's answer must agree with both (else ``PortDisagrees``)."""

    def port_vector(row: CaseRow) -> VectorTest:
        result, expected = answer(row.input)
        outcome = OK if result == "valid" else str(expected["error"])
        if outcome != row.extra.get("expect"):
            raise PortDisagrees(
                f"{row.id}: upstream asserts {row.extra.get('expect')}, reference {outcome}"
            )
        failed = asserts.broken(row.extra.get("asserts", ()), expected)
        if failed:
            raise PortDisagrees(f"{row.id}: the reference breaks {'; '.join(failed)}")
        return VectorTest(
            row.id,
            row.rule,
            row.comment,
            dict(row.input),
            expected,
            cases.intended(row, result),
            row.flags,
            provenance=row.provenance,
        )

    return port_vector


STORAGE_INPUT = ("keyring", "active_key_id", "namespace", "name", "steps")
"""A storage CAS trace's members, in the order a vector lists them."""


def storage_port(row: CaseRow) -> VectorTest:
    """A tabled storage CAS trace port: every step states the outcome upstream asserts
    (``expect``), ``with.asserts`` the values it asserts of the step outcomes (``ok``,
    ``details``); ``null`` and u64 values are written ``{ "$json" = ... }``."""
    stated = cases.json_values(row.input)
    document = {key: stated[key] for key in STORAGE_INPUT}
    document["steps"] = [
        {key: value for key, value in step.items() if key != "expect"} for step in stated["steps"]
    ]
    expected = storage_harness.run_trace(document)
    outcomes = [OK if "ok" in step else str(step["error"]) for step in expected["steps"]]
    intended = [step["expect"] for step in stated["steps"]]
    if outcomes != intended:
        raise PortDisagrees(f"{row.id}: upstream asserts {intended}, reference {outcomes}")
    failed = asserts.broken(row.extra.get("asserts", ()), expected["steps"])
    if failed:
        raise PortDisagrees(f"{row.id}: the reference breaks {'; '.join(failed)}")
    return VectorTest(
        row.id,
        row.rule,
        row.comment,
        document,
        expected,
        cases.intended(row, "valid"),
        row.flags,
        provenance=row.provenance,
    )
