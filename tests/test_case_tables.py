"""Case tables as data (conformance/cases/*.toml): the loader's refusals, and the promise that
adding a vector is one row plus an export."""

from __future__ import annotations

import json

import pytest

from rescind.conformance import cases
from rescind.conformance.cases import CaseTableError, parse_table, read_table_text
from rescind.conformance.vectors.sets import _canonical_families as canonical_families
from rescind.conformance.vectors.sets import canonical_input

NEW_ROW = """
[[group.case]]
id = "canon.object.added-by-a-maintainer"
rule = "CJ-13"
comment = "a row added to the table"
input = { format = "json", text = '{"zz":1,"aa":[true]}' }
result = "valid"
"""


def _tests_by_id(vector_file) -> dict[str, str]:
    return {
        test["id"]: json.dumps(test, sort_keys=True)
        for group in vector_file.to_json()["testGroups"]
        for test in group["tests"]
    }


def _with_row_in_group(text: str, group: str, row: str) -> str:
    """The table text with ``row`` appended as the last case of ``group``."""
    start = text.index(f'name = "{group}"')
    following = text.find("[[group]]", start)
    cut = len(text) if following == -1 else following
    return text[:cut].rstrip("\n") + "\n" + row + "\n\n" + text[cut:]


def test_adding_a_row_adds_exactly_one_vector_and_changes_no_other() -> None:
    shipped = canonical_input.build()
    text = _with_row_in_group(read_table_text("canonical-input"), "objects", NEW_ROW)
    grown = canonical_input.build(parse_table("canonical-input", text, canonical_families.FAMILIES))
    before, after = _tests_by_id(shipped), _tests_by_id(grown)
    assert set(after) - set(before) == {"canon.object.added-by-a-maintainer"}
    assert {key: after[key] for key in before} == before
    added = json.loads(after["canon.object.added-by-a-maintainer"])
    # computed by the reference: key order CJ-13, compared with an independent encoding
    assert added["expected"]["canonicalJson"] == json.dumps(
        {"aa": [True], "zz": 1}, separators=(",", ":"), sort_keys=True
    )
    assert added["provenance"]["kind"] == "derived"


def test_a_stated_result_the_reference_contradicts_is_refused() -> None:
    wrong = NEW_ROW.replace('result = "valid"', 'result = "invalid"')
    text = _with_row_in_group(read_table_text("canonical-input"), "objects", wrong)
    table = parse_table("canonical-input", text, canonical_families.FAMILIES)
    with pytest.raises(CaseTableError, match=r"canon\.object\.added-by-a-maintainer.*invalid"):
        canonical_input.build(table)


def test_every_shipped_row_states_a_result_and_keeps_the_file_order() -> None:
    table = canonical_input.table()
    built = [test.id for group in canonical_input.build().groups for test in group.tests]
    assert [row.id for row in table.rows()] == built
    generated = {row.id for family in canonical_families.FAMILIES.values() for row in family()}
    for row in table.rows():
        assert row.id in generated or row.result is not None, row.id


MINIMAL = """topic = "t"
[[group]]
name = "g"
description = "d"
[[group.case]]
id = "t.a"
rule = "CJ-1"
comment = "c"
provenance = { kind = "derived" }
"""
SECRET = "PAYLOAD-SECRET-9f3"


@pytest.mark.parametrize(
    ("text", "families", "message"),
    [
        (f'topic = "t"\n[[group]\nx = "{SECRET}"', {}, "not TOML"),
        (MINIMAL.replace('rule = "CJ-1"', f'rule = "{SECRET}"'), {}, "/group/0/case/0"),
        (MINIMAL + '[[group.case]]\nfamily = "nope"\n', {}, "unknown family 'nope'"),
        (
            MINIMAL + MINIMAL.split("[[group.case]]")[1].join(["[[group.case]]", ""]),
            {},
            "repeats id t.a",
        ),
        (
            MINIMAL.replace('provenance = { kind = "derived" }\n', ""),
            {},
            "t.a states no provenance",
        ),
        (MINIMAL.replace('{ kind = "derived" }', '{ kind = "assumed" }'), {}, "/group/0/case/0"),
        (MINIMAL.replace('topic = "t"', 'topic = "u"'), {}, "says it is topic 'u'"),
        (
            MINIMAL.replace(
                'comment = "c"', f'comment = "c"\ninput = {{ text = "{SECRET}" }}\nextra = 1'
            ),
            {},
            "/group/0/case/0",
        ),
    ],
)
def test_a_broken_table_is_refused_by_name_without_its_payloads(
    text: str, families: dict[str, cases.Family], message: str
) -> None:
    with pytest.raises(CaseTableError) as caught:
        parse_table("t", text, families)
    assert message in str(caught.value)
    assert "t.toml" in str(caught.value)
    assert SECRET not in str(caught.value)


def test_a_family_splices_its_rows_in_place() -> None:
    row = cases.CaseRow(
        "t.generated", "CJ-2", "made", {}, cases.provenance_of({"kind": "derived"}, "CJ-2")
    )
    text = (
        MINIMAL
        + '[[group.case]]\nfamily = "gen"\n'
        + MINIMAL.split("[[group]]")[1]
        .split("[[group.case]]")[1]
        .replace("t.a", "t.z")
        .join(["[[group.case]]", ""])
    )
    table = parse_table("t", text, {"gen": lambda: [row]})
    assert [r.id for r in table.rows()] == ["t.a", "t.generated", "t.z"]
    assert (
        table.rows()[2].provenance.citation
        == "computed by the reference from docs/spec/canonical.md CJ-1"
    )
