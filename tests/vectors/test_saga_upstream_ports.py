"""The saga upstream-test ports are rows of conformance/cases/saga-upstream-tests.toml."""

from __future__ import annotations

import re

from rescind.conformance import cases
from rescind.conformance.vectors.sets import saga_upstream_tests

_ROW = re.compile(r"\[\[group\.case\]\]\nid = \"(casehub\.bindings\.[^\"]+)\"")


def test_every_row_is_one_vector_in_file_order_citing_its_upstream_test() -> None:
    table = cases.load(saga_upstream_tests.TOPIC)
    built = [test for group in saga_upstream_tests.build().groups for test in group.tests]
    assert [test.id for test in built] == [row.id for row in table.rows()]
    for test in built:
        assert test.provenance is not None
        assert test.provenance.kind == "upstream-test", test.id
        assert " test " in test.provenance.citation, test.id


def test_refusals_keep_the_binding_findings() -> None:
    (validate,) = (g for g in saga_upstream_tests.build().groups if g.type == "validate")
    refused = [test for test in validate.tests if test.result == "invalid"]
    assert refused
    assert all(set(test.expected) == {"error", "findings"} for test in refused)


def test_a_copied_row_under_a_new_id_adds_exactly_one_vector() -> None:
    text = cases.read_table_text(saga_upstream_tests.TOPIC)
    match = _ROW.search(text)
    assert match is not None
    start = match.start()
    end = text.index("[[group.case]]", start + 1)
    copy = text[start:end].replace(match.group(1), match.group(1) + ".copy")
    table = cases.parse_table(saga_upstream_tests.TOPIC, text[:end] + copy + text[end:])
    before = saga_upstream_tests.build()
    after = saga_upstream_tests.build(table)
    old = {t.id: t for g in before.groups for t in g.tests}
    new = {t.id: t for g in after.groups for t in g.tests}
    assert set(new) - set(old) == {match.group(1) + ".copy"}
    assert all(new[test_id] == test for test_id, test in old.items())
