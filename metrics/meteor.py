"""METEOR 1.5 through the jar shipped in the `pycocoevalcap` wheel, one JVM per scorer.

    with Meteor() as meteor:
        meteor.score("the dog ran .", ["the dog ran .", "a cat sat ."])          # 1.0
        meteor.score_many([(hypothesis, references), ...])                       # [float, ...]

The JVM runs `java -Xmx512M -jar meteor-1.5.jar - - -stdio -l en -t hter`: English, texts taken as they are
(no `-norm`, no `-lower`: the tokens are the runs of text between spaces, tabs and line breaks, case kept), the
HTER task's parameters alpha 0.4, beta 1.5, gamma 0.35, delta 0.55 and module weights exact 1.0, stem 0.2, synonym
0.6, paraphrase 0.8, as in the VIST paper; the JVM's locale pinned to en_US and UTF-8 (`JVM_LOCALE`). This is the
setting of the official VIST challenge evaluator (`EvalVISTSharedTask`: `new MeteorConfiguration()`,
`setTask("hter")`, `getMeteorStats(story, reference).score`), so scores equal its scores; `-norm` (as in
pycocoevalcap) would split `[male]` into `[ male ]` and punctuation off words, and score differently. The JVM starts
once, when the scorer is created, and serves every score until `close()` (or the end of the `with` block). Loading
the paraphrase table takes about 6 s on a 2-core machine (the first score waits for it).

The heap (`MEMORY`) is sized to what the paraphrase table needs: scoring 3,000 pairs of 60-word texts with 4
references each, the JVM fails with OutOfMemoryError at -Xmx256M and works at -Xmx384M (peak RSS of the JVM
476 MB); -Xmx512M leaves room for long stories at a peak RSS of about 600 MB, where -Xmx2G let the heap grow to a
peak RSS of 1.5 GB for the same work.

The jar's stdio protocol, one request per line, one answer per line:

- `SCORE ||| reference 1 ||| ... ||| reference n ||| hypothesis` answers the sufficient statistics (23 numbers) of
  the hypothesis against the reference that gives it the highest score, so the score of a hypothesis with several
  references is the maximum over them;
- `EVAL ||| stats 1 ||| ... ||| stats n` answers n lines (the score of each) and one more line, the score of the
  summed statistics (not used here: the scores we report are means of the per-hypothesis scores).

`score_many` writes the SCORE lines of a chunk of pairs, reads their statistics, then sends one EVAL line for the
chunk: a few round trips per thousand pairs instead of two per pair. Chunks are small enough that neither pipe can
fill up while the other side waits.

Texts are made safe for the line protocol without changing what the jar scores (`protocol_texts`): line breaks
become spaces (they separate tokens anyway), and when a request holds a `|` (the jar splits lines at `|||`), every
`|` of its texts is replaced by one private-use character that none of them holds: the word and function-word
lists, stemmer, synonyms and paraphrase table treat both alike, so the scores are those of the texts as typed. A
hypothesis with no token scores 0.0, as in the official evaluator.

Identical hypothesis and reference score exactly 1.0: precision and recall are 1 and the jar sets the fragmentation
to 0 when every word of both is matched in a single chunk (`MeteorScorer.computeMetrics`, "case if test = ref"), so
the penalty gamma * frag^beta is 0; with the hter parameters fMean = 1 / (0.6 / 1 + 0.4 / 1) = 1.0 in floating point.
"""
from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Protocol

JAVA_MISSING = "METEOR needs Java: install default-jre-headless"
# The jar parses the statistics of EVAL lines with java.util.Scanner, which follows the default locale (under a
# German locale "7.0" is not a number and the JVM dies), and reads some word lists in the default charset.
JVM_LOCALE = ("-Duser.language=en", "-Duser.country=US", "-Dfile.encoding=UTF-8")
METEOR_SETTING = ("METEOR 1.5 as the official VIST challenge evaluator runs it (java -jar meteor-1.5.jar -stdio -l en "
                  "-t hter, without -norm: texts tokenized at spaces as given, case kept; alpha 0.4, beta 1.5, "
                  "gamma 0.35, delta 0.55; module weights exact 1.0, stem 0.2, synonym 0.6, paraphrase 0.8)")
MEMORY = "512M"  # the JVM's -Xmx (see the module docstring)
CHUNK = 200  # pairs per round trip; 200 lines of statistics (~25 KB) stay well below a 64 KB pipe buffer
_LINE_BREAKS = re.compile(r"[\r\n]")
_TOKEN_SEPARATORS = " \t\n\r\f"  # java.util.StringTokenizer's, which the jar splits texts with
_PIPE_STANDINS = range(0xE000, 0xF900)  # the Basic Multilingual Plane's private use area


def pair_key(hypothesis: str, references: Sequence[str]) -> str:
    """A hash of what a METEOR score depends on: the setting, the hypothesis and the set of references (the score is
    the best over the references, so their order does not matter). A stored score is current while its key is."""
    digest = hashlib.sha256(METEOR_SETTING.encode())
    for text in (hypothesis, *sorted(references)):
        encoded = text.encode("utf-8", errors="surrogatepass")
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
    return digest.hexdigest()


class MeteorScorer(Protocol):
    """What the reports need from a METEOR scorer (a `Meteor`, or a stand-in)."""

    def score_many(self, pairs: Iterable[tuple[str, Sequence[str]]]) -> list[float]: ...


class MeteorError(RuntimeError):
    """Java is missing, the jar is missing, or the METEOR process failed."""


def meteor_jar() -> Path:
    """The `meteor-1.5.jar` of the installed pycocoevalcap (its `data/paraphrase-en.gz` sits next to it)."""
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        raise MeteorError("METEOR needs the pycocoevalcap package (pip install pycocoevalcap)")
    jar = Path(next(iter(spec.submodule_search_locations))) / "meteor" / "meteor-1.5.jar"
    if not jar.is_file():
        raise MeteorError(f"METEOR jar not found at {jar}")
    return jar


def has_tokens(text: str) -> bool:
    """Whether the jar sees a token in `text`."""
    return bool(text.strip(_TOKEN_SEPARATORS))


def protocol_texts(texts: Sequence[str]) -> list[str]:
    """`texts` on one line each without the `|||` separator, scoring as they are (see the module docstring)."""
    lines = [_LINE_BREAKS.sub(" ", text) for text in texts]
    if not any("|" in line for line in lines):
        return lines
    used = set().union(*lines)
    standin = next((chr(code) for code in _PIPE_STANDINS if chr(code) not in used), None)
    if standin is None:
        raise ValueError("a text to score holds every private-use character: its pipes cannot be sent to METEOR")
    return [line.replace("|", standin) for line in lines]


class Meteor:
    """A METEOR 1.5 scorer backed by one JVM; thread-safe; use as a context manager or call `close()`."""

    def __init__(self, java: str = "java", task: str = "hter", language: str = "en", memory: str = MEMORY):
        executable = shutil.which(java)
        if executable is None:
            raise MeteorError(f"{JAVA_MISSING} (no '{java}' executable found)")
        jar = meteor_jar()
        self.command: list[str] = [executable, f"-Xmx{memory}", *JVM_LOCALE, "-jar", str(jar), "-", "-", "-stdio",
                                   "-l", language, "-t", task]
        self._stderr = tempfile.TemporaryFile()
        self._lock = threading.Lock()
        try:
            self._process = subprocess.Popen(self.command, cwd=jar.parent, stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=self._stderr)
        except OSError as error:
            self._stderr.close()
            raise MeteorError(f"{JAVA_MISSING} (could not run '{java}': {error})") from None

    @property
    def pid(self) -> int:
        """The process id of the JVM (the same for every score of this scorer)."""
        return self._process.pid

    def __enter__(self) -> Meteor:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop the JVM (idempotent)."""
        with self._lock:
            if self._process.poll() is None:
                if self._process.stdin:
                    try:
                        self._process.stdin.close()
                    except OSError:
                        pass
                try:
                    self._process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            if self._process.stdout:
                self._process.stdout.close()
            self._stderr.close()

    def __del__(self) -> None:
        process = getattr(self, "_process", None)
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def score(self, hypothesis: str, references: Sequence[str]) -> float:
        """METEOR of `hypothesis` against its best reference."""
        return self.score_many([(hypothesis, references)])[0]

    def score_many(self, pairs: Iterable[tuple[str, Sequence[str]]]) -> list[float]:
        """METEOR of each (hypothesis, references) pair, in order; each against its best reference."""
        requests: list[str | None] = []
        for index, (hypothesis, references) in enumerate(pairs):
            if isinstance(references, str) or not references:
                raise ValueError(f"pair {index}: references must be a non-empty list of strings")
            if not has_tokens(hypothesis):
                requests.append(None)
                continue
            *reference_lines, hypothesis_line = protocol_texts([*references, hypothesis])
            requests.append(" ||| ".join(["SCORE", *reference_lines, hypothesis_line]))
        scores = [0.0] * len(requests)
        asked = [index for index, request in enumerate(requests) if request is not None]
        with self._lock:
            for start in range(0, len(asked), CHUNK):
                chunk = asked[start:start + CHUNK]
                statistics = self._exchange([requests[index] or "" for index in chunk], len(chunk))
                values = self._exchange(["EVAL ||| " + " ||| ".join(statistics)], len(chunk) + 1)
                for index, value in zip(chunk, values, strict=False):
                    scores[index] = float(value)
        return scores

    def _exchange(self, lines: list[str], answers: int) -> list[str]:
        """Write `lines`, then read `answers` lines back."""
        process = self._process
        if process.poll() is not None or process.stdin is None or process.stdout is None:
            raise MeteorError(f"the METEOR process is not running{self._stderr_tail()}")
        try:
            process.stdin.write(("\n".join(lines) + "\n").encode("utf-8", errors="replace"))
            process.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise MeteorError(f"the METEOR process stopped{self._stderr_tail()}") from None
        replies = []
        for _ in range(answers):
            reply = process.stdout.readline().decode("utf-8", errors="replace").strip()
            if not reply:
                raise MeteorError(f"the METEOR process stopped answering{self._stderr_tail()}")
            if reply.startswith("Error"):
                raise MeteorError(f"METEOR refused a request: {reply}")
            replies.append(reply)
        return replies

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0)
            tail = self._stderr.read()[-2000:].decode("utf-8", errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f": {tail}" if tail else ""
