"""METEOR 1.5 through the real jar: exact scores, best-of-references, one JVM, protocol-safe texts, missing Java.

The JVM takes seconds to start, so one scorer serves every test module of this folder (`shared_meteor`).
"""
from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

import metrics.meteor as meteor_module
from metrics.meteor import CHUNK, JAVA_MISSING, Meteor, MeteorError, protocol_texts

_SHARED = pytest.StashKey[Meteor]()

CAT = "the cat sat on the mat ."
DOG = "a dog ran in the park"


GERMAN = "-Duser.language=de -Duser.country=DE"


def shared_meteor(config: pytest.Config) -> Meteor:
    """One METEOR JVM for the whole test session, stopped when the session ends.

    It is started under a German default locale (JAVA_TOOL_OPTIONS), which breaks the jar unless the scorer pins
    en_US: every test that scores then also checks that (see test_a_foreign_default_locale_does_not_break_the_jar).
    """
    if _SHARED not in config.stash:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("JAVA_TOOL_OPTIONS", GERMAN)
            scorer = Meteor()
        config.stash[_SHARED] = scorer
        config.add_cleanup(scorer.close)
    return config.stash[_SHARED]


@pytest.fixture(scope="module")
def meteor(pytestconfig: pytest.Config) -> Meteor:
    return shared_meteor(pytestconfig)


def jvm_children() -> list[int]:
    """Pids of this process's children running the METEOR jar."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parent = next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:"))
        if int(parent) == os.getpid() and "meteor-1.5.jar" in command:
            pids.append(int(entry.name))
    return pids


def test_identical_texts_score_exactly_one(meteor: Meteor):
    assert meteor.score(CAT, [CAT]) == 1.0
    long_story = ("the kids had a great time . and the kids had a great time at the beach . " * 8).strip()
    assert meteor.score(long_story, [long_story]) == 1.0  # many repeated words: still one chunk, no penalty


def test_texts_are_scored_as_they_are(meteor: Meteor):
    # no -norm, as in the official VIST evaluator: case is kept, punctuation stays on its word, brackets stay
    assert meteor.score("The cat sat on the mat.", [CAT]) < 1.0
    assert meteor.score("[male] sat on the mat .", ["[male] sat on the mat ."]) == 1.0
    assert meteor.score("[male] sat on the mat .", ["male sat on the mat ."]) < 1.0


def test_non_ascii_text_goes_through_as_utf8(meteor: Meteor):
    text = "the café was naïve — we ate crème brûlée 😀 ."
    assert meteor.score(text, [text]) == 1.0
    assert meteor.score(text, ["the cafe was naive"]) < 1.0
    assert meteor.score("\ud800 lone surrogate", ["? lone surrogate"]) == 1.0  # unencodable: replaced by "?"


def test_unrelated_text_scores_low_and_partial_overlap_in_between(meteor: Meteor):
    unrelated = meteor.score(DOG, [CAT])
    partial = meteor.score("the cat sat on a chair .", [CAT])
    assert 0.0 <= unrelated < 0.2
    assert unrelated < partial < 1.0
    assert meteor.score("zebra giraffe", [CAT]) == 0.0


def test_hter_parameters_by_hand(meteor: Meteor):
    # DOG against CAT: 6 test words (3 function words: a, in, the), 7 reference words (4: the, on, the, .), one exact
    # match ("the", a function word) in one chunk. With -t hter (alpha 0.4, beta 1.5, gamma 0.35, delta 0.55):
    test_length = 0.55 * (6 - 3) + 0.45 * 3
    reference_length = 0.55 * (7 - 4) + 0.45 * 4
    matched = 1.0 * 0.45
    precision, recall = matched / test_length, matched / reference_length
    f_mean = 1 / (0.6 / precision + 0.4 / recall)
    penalty = 0.35 * (1 / 1) ** 1.5  # chunks / mean matches
    assert meteor.score(DOG, [CAT]) == pytest.approx(f_mean * (1 - penalty), rel=1e-12)
    # (the default ranking task, alpha 0.85, beta 0.2, gamma 0.6, delta 0.75, would give 0.0311)
    assert f_mean * (1 - penalty) == pytest.approx(0.0919811, abs=1e-7)


def test_several_references_take_the_best(meteor: Meteor):
    hypothesis = "the cat sat on a chair ."
    weak, strong = meteor.score(hypothesis, [DOG]), meteor.score(hypothesis, [CAT])
    assert weak < strong
    assert meteor.score(hypothesis, [DOG, CAT]) == strong
    assert meteor.score(hypothesis, [CAT, DOG]) == strong
    assert meteor.score(CAT, [DOG, "something else", CAT]) == 1.0


def test_score_many_keeps_order_across_chunks(meteor: Meteor):
    pairs = [(CAT, [CAT]) if index % 3 else (DOG, [CAT]) for index in range(CHUNK * 2 + 17)]
    scores = meteor.score_many(pairs)
    assert len(scores) == len(pairs)
    low = meteor.score(DOG, [CAT])
    assert scores == [1.0 if index % 3 else low for index in range(len(pairs))]
    assert meteor.score_many([]) == []


def test_one_jvm_serves_every_score(meteor: Meteor, monkeypatch: pytest.MonkeyPatch):
    started = []
    real_popen = subprocess.Popen

    def spy(*args, **kwargs):
        started.append(args)
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(meteor_module.subprocess, "Popen", spy)
    pid = meteor.pid
    before = jvm_children()
    meteor.score_many([(CAT, [DOG, CAT])] * 300)
    for _ in range(20):
        meteor.score(DOG, [CAT])
    assert started == []
    assert meteor.pid == pid
    assert pid in before  # other tests' JVMs may be alive too (the story tests share one per session)
    assert jvm_children() == before


def test_separator_and_newlines_in_texts_are_neutralized(meteor: Meteor):
    assert protocol_texts(["a\n\n b\r\nc\td", "e"]) == ["a   b  c\td", "e"]
    pipes = protocol_texts(["x ||| y |||| z | w", "\ue000 v"])
    assert pipes == ["x \ue001\ue001\ue001 y \ue001\ue001\ue001\ue001 z \ue001 w", "\ue000 v"]
    assert "|" not in "".join(protocol_texts(["|" * 7]))
    # unprotected, the jar would read "the cat sat on the mat ." as the hypothesis and "zebra" as a reference
    assert meteor.score(f"zebra ||| {CAT}", [CAT]) < 1.0
    assert meteor.score("the cat ||| sat\non the mat .", ["the cat ||| sat on the mat ."]) == 1.0
    assert meteor.score("the cat || sat", ["the cat | | sat"]) < 1.0  # "||" is one token, as typed
    assert meteor.score(CAT, ["zebra\nSCORE ||| x", CAT]) == 1.0


def test_empty_texts_and_bad_references(meteor: Meteor):
    assert meteor.score("", [CAT]) == 0.0
    assert meteor.score("   \n", [CAT]) == 0.0
    assert meteor.score(CAT, [""]) == 0.0
    with pytest.raises(ValueError, match="pair 1: references must be a non-empty list"):
        meteor.score_many([(CAT, [CAT]), (CAT, [])])
    with pytest.raises(ValueError, match="non-empty list of strings"):
        meteor.score(CAT, CAT)  # type: ignore[arg-type]


def test_a_foreign_default_locale_does_not_break_the_jar(meteor: Meteor):
    # under a German locale the jar's Scanner cannot read back "7.0" and the JVM dies on the first EVAL line; the
    # command line pins en_US, which wins over JAVA_TOOL_OPTIONS
    environment = Path(f"/proc/{meteor.pid}/environ").read_bytes().split(b"\0")
    assert f"JAVA_TOOL_OPTIONS={GERMAN}".encode() in environment
    assert meteor.score_many([(DOG, [CAT]), (CAT, [CAT])]) == [pytest.approx(0.0919811, abs=1e-7), 1.0]


def test_missing_java_gives_an_install_hint(tmp_path: Path):
    with pytest.raises(MeteorError, match=JAVA_MISSING) as raised:
        Meteor(java=str(tmp_path / "no" / "java"))
    assert "default-jre-headless" in str(raised.value)


def fake_java(tmp_path: Path, body: str) -> str:
    script = tmp_path / "java"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_a_process_that_dies_is_reported(tmp_path: Path):
    with Meteor(java=fake_java(tmp_path, "echo 'Error: no jar here' >&2; exit 1")) as broken:
        with pytest.raises(MeteorError, match="no jar here"):
            broken.score(CAT, [CAT])


def test_close_stops_the_process(tmp_path: Path):
    with Meteor(java=fake_java(tmp_path, "exec cat > /dev/null")) as scorer:
        process = scorer._process
        assert process.poll() is None
    assert process.poll() is not None
    with pytest.raises(MeteorError, match="not running"):
        scorer.score(CAT, [CAT])
    scorer.close()  # idempotent
