"""The checks produce evidence (issue 26): beside its problems, each check that proves a
sentence returns it with what it read to prove it (trafikist.course.evidence), and what it
read is what the facts hold: the seed's words, the registry's rows, the transcript the page
shows, Valkey's command table and pinned documentation, the model's deciding step."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import ROOT
from support.registry import MODULE, copy_tree
from trafikist.checks import Facts, page_evidence
from trafikist.checks.manifest import load_manifest, resolve_manifest_path
from trafikist.checks.seed import load_seed, resolve_seed_path
from trafikist.course import syntax
from trafikist.course.evidence import (
    CheckedSentence,
    CommandTableField,
    DocsQuote,
    ModelChoice,
    ModelStep,
    RegistryField,
    SeedQuote,
    TranscriptStep,
)
from trafikist.course.loader import load_course
from trafikist.course.predicates import parse
from trafikist.course.runs import scenario_trace
from trafikist.course.structure import Course, Page
from trafikist.course.transcripts import shown_steps
from trafikist.model.choices import MODEL_CHOICES
from trafikist.model_view.draw import quote_arg, step_reply
from trafikist.registry import load_registry
from trafikist.registry.valkey import load_valkey_docs, load_valkey_table, resolve_valkey_folder

MODULE_04_ID = "blocking-timers-and-the-bus"


def facts_of(registry_dir: Path, base: Path) -> Facts:
    manifest_path = resolve_manifest_path(registry_dir, base)
    folder = resolve_valkey_folder(str(registry_dir), base)
    return Facts(
        load_registry(registry_dir),
        load_manifest(manifest_path),
        load_seed(resolve_seed_path(manifest_path)),
        load_valkey_table(folder),
        load_valkey_docs(folder),
    )


@pytest.fixture(scope="module")
def course_and_facts() -> tuple[Course, Facts]:
    return load_course(ROOT / "modules"), facts_of(ROOT / "registry", ROOT)


def module_04(course: Course) -> list[Page]:
    module = course.pages[MODULE_04_ID]
    return [module, *module.dives]


def test_every_kind_of_evidence_is_what_its_check_read(
    course_and_facts: tuple[Course, Facts],
) -> None:
    course, facts = course_and_facts
    found: dict[type, int] = {}
    for page in module_04(course):
        sentences = page_evidence(page, facts)
        assert sentences, page.id
        assert len({sentence.anchor for sentence in sentences}) == len(sentences)
        for sentence in sentences:
            assert sentence.evidence, sentence
            _where_it_stands(page, sentence)
            for item in sentence.evidence:
                found[type(item)] = found.get(type(item), 0) + 1
                _holds(page, facts, item)
    kinds = {SeedQuote, RegistryField, TranscriptStep, CommandTableField, ModelStep, ModelChoice}
    assert kinds <= set(found), found


def _where_it_stands(page: Page, sentence: CheckedSentence) -> None:
    """The anchor names where the sentence is written: its text is there."""
    where, _, offset = sentence.anchor.rpartition(":")
    start = int(offset)
    if where == "body":
        assert page.body[start : start + len(sentence.text)] == sentence.text
    elif where.startswith("duty:"):
        _, duty_id, field = where.split(":", 2)
        duty = next(duty for duty in page.duties if duty.id == duty_id)
        assert duty.text(field)[start : start + len(sentence.text)] == sentence.text


def _holds(page: Page, facts: Facts, item: object) -> None:
    match item:
        case SeedQuote(quote=quote):
            assert facts.seed.contains(quote), quote
        case RegistryField(command=command, field=field, value=value):
            row = facts.registry.rows.get(command)
            if field == "row":  # exists, absent
                assert (row is not None) == (value == "exists"), (command, value)
            elif row is not None:
                actual = row.value(field)
                shown = ", ".join(actual) if isinstance(actual, list) else str(actual)
                assert value == shown, (command, field, value)
        case TranscriptStep(transcript=name, step=number, command=command, reply=reply):
            excerpt = next(
                excerpt
                for excerpt in syntax.scan(page.body).excerpts
                if excerpt.options.get("transcript") == name
            )
            text = "\n".join(line for fence in excerpt.fences for line in fence.code)
            step = shown_steps(text)[number - 1]
            assert (command, reply) == (step.prompt.strip(), step.reply)
        case CommandTableField(command=command, field=field, value=value):
            found = facts.valkey.get(command)
            assert found is not None
            actual = found.fields.get(field)
            assert value == (
                " ".join(map(str, actual)) if isinstance(actual, list) else str(actual)
            )
        case DocsQuote(path=path, quote=quote, commit=commit):
            pinned = facts.valkey_docs.page(path)
            assert pinned is not None and quote in pinned.quotes and commit == pinned.commit
        case ModelStep(step=index, t=t, client=client, command=command, reply=reply):
            assert item.holds
            if index is not None:
                assert page.source is not None
                runs = [duty.default_scenario for duty in page.duties]
                example = page.source.with_name(page.source.stem + ".example.yml")
                path = next(
                    path
                    for path in [*runs, example]
                    if path is not None and path.name == item.run.split(" · ")[0]
                )
                step = scenario_trace(path, parse(item.predicate).overrides)["steps"][index]
                assert (t, client) == (step["t"], step["client"])
                assert command == " ".join(quote_arg(arg) for arg in step["argv"])
                assert reply == step_reply(step)
        case ModelChoice(id=choice_id, sentence=words):
            assert words == {choice.id: choice.text for choice in MODEL_CHOICES}[choice_id]


def test_a_proof_that_changes_changes_the_evidence(tmp_path: Path) -> None:
    """The fixture course's claim `*.flags lacks blocking` reads every row's flags: a row's
    flags changed in the registry (still not blocking) are in its evidence."""
    modules, registry = copy_tree(tmp_path)

    def flags_read() -> set[tuple[str, str]]:
        course = load_course(modules)
        page = next(page for page in course.pages.values() if page.source == modules / MODULE)
        sentence = next(
            sentence
            for sentence in page_evidence(page, facts_of(registry, tmp_path))
            if "*.flags lacks blocking" in sentence.text
        )
        return {
            (item.command, item.value)
            for item in sentence.evidence
            if isinstance(item, RegistryField) and item.field == "flags"
        }

    before = dict(flags_read())
    source = registry / "src/registry.rs"
    text = source.read_text()
    at = text.index('name: c"EMQ.APPEND"')
    flags = re.compile(r'flags: "([^"]*)"').search(text, at)
    assert flags is not None
    source.write_text(text[: flags.end(1)] + " fast" + text[flags.end(1) :])
    after = dict(flags_read())
    assert after["EMQ.APPEND"] == before["EMQ.APPEND"] + " fast"
    assert {k: v for k, v in after.items() if k != "EMQ.APPEND"} == {
        k: v for k, v in before.items() if k != "EMQ.APPEND"
    }


def test_a_sentence_that_fails_its_check_has_no_evidence(tmp_path: Path) -> None:
    """A claim that no longer holds is a problem, never evidence."""
    modules, registry = copy_tree(tmp_path)
    page_file = modules / MODULE
    page_file.write_text(
        page_file.read_text().replace(
            "{claim: *.flags lacks blocking}", "{claim: *.flags has blocking}"
        )
    )
    course = load_course(modules)
    page = next(page for page in course.pages.values() if page.source == page_file)
    texts = [sentence.text for sentence in page_evidence(page, facts_of(registry, tmp_path))]
    assert not [text for text in texts if "*.flags has blocking" in text]
    assert [text for text in texts if "claim:" in text], texts
