"""``rescind --help`` and ``rescind check --help`` start without the suite: the top-level
parser imports only the subcommand that runs, and check's parser is built from the light
``rescind.cli._options``. Counted in modules, never timed (timing belongs in benchmarks/)."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from rescind.cli import COMMANDS, _options, commands

MODULE_BUDGET = 200
"""Modules ``rescind --help`` may import, the interpreter's own start-up included."""
HEAVY = ("z3", "hypothesis", "rich", "attrs", "rescind.conformance", "rescind.model")


def _imported(*words: str) -> tuple[int, list[str]]:
    """Modules imported by ``rescind WORDS`` (counted by -X importtime) and which of HEAVY."""
    probe = (
        "import sys\n"
        "from rescind.cli import main\n"
        "try:\n"
        f"    main({list(words)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('HEAVY:' + ','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", probe],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = completed.stderr.splitlines()
    count = sum(1 for line in lines if line.startswith("import time:") and "|" in line) - 1
    marked = [line for line in lines if line.startswith("HEAVY:")][-1]
    heavy = [name for name in marked.removeprefix("HEAVY:").split(",") if name]
    return count, heavy


@pytest.mark.parametrize("words", [("--help",), ("check", "--help")])
def test_help_imports_no_suite(words: tuple[str, ...]) -> None:
    count, heavy = _imported(*words)
    assert count < MODULE_BUDGET, count
    assert heavy == [], heavy


def test_commands_lists_every_subcommand_with_its_help() -> None:
    """``COMMANDS`` (what --help shows without importing) matches what each module registers."""
    registered: dict[str, str | None] = {}
    for module in commands():
        parser = argparse.ArgumentParser()
        subparsers = parser.add_subparsers()
        module.register(subparsers)
        for action in subparsers._choices_actions:
            registered[action.dest] = action.help
    assert registered == dict(COMMANDS)
    assert [name for name, _ in COMMANDS] == [m.__name__.rsplit(".", 1)[1] for m in commands()]


def test_light_defaults_equal_the_suite_s() -> None:
    from rescind.conformance.explore import example_db
    from rescind.conformance.harness import DEFAULT_TIMEOUT
    from rescind.conformance.report.run import PROVENANCE_LABELS
    from rescind.conformance.sources.exploration import DEFAULT_EXAMPLES

    assert _options.DEFAULT_TIMEOUT == DEFAULT_TIMEOUT
    assert _options.PROVENANCE_LABELS == PROVENANCE_LABELS
    assert str(example_db.DEFAULT_DIRECTORY) == _options.DEFAULT_EXAMPLE_DB
    assert _options.DEFAULT_EXPLORE_STEPS == DEFAULT_EXAMPLES
    from rescind.conformance.report.claim import CLASSES

    assert tuple(each.name for each in CLASSES) == _options.CLAIM_CLASSES


def test_check_help_shows_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    from rescind.cli import main

    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "reply (default: 30.0)" in text
    assert "(default: 200)" in text  # --explore-steps
    assert "(default: the cores available; 1: in this process)" in text  # --jobs


def test_an_unknown_command_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from rescind.cli import main

    assert main(["chek"]) == 2
    error = capsys.readouterr().err
    assert "invalid choice: 'chek'" in error and len(error.splitlines()) == 1
