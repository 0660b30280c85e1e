"""Categorical answers of several workers to the same tasks combined into one label per task, with each worker's
estimated skill: majority vote, Dawid-Skene and MACE, all from crowd-kit (imported when first used: it is slow to
import).

Input rows are (task, worker, label) with any hashable values. They are coded as integers before crowd-kit sees
them (labels in sorted order when they can be sorted), so that booleans, tuples or mixed ids never meet pandas'
index rules, and so that ties are broken the same way every time: towards the smaller label (False before True,
grade 1 before grade 2). Every method is deterministic: Dawid-Skene and majority have no randomness, MACE is
seeded."""
from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

Row = tuple[Hashable, Hashable, Hashable]  # task, worker, label

DAWID_SKENE = "Dawid-Skene (crowd-kit)"
MACE = "MACE (crowd-kit)"
MAJORITY = "majority vote (crowd-kit)"


@contextmanager
def _crowdkit_quiet() -> Iterator[None]:
    """crowd-kit 1.4 uses pandas calls that pandas 3 deprecates (about 70 warnings per fit): they say nothing about
    the data, so they are kept out of the logs while a model is fitted."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"crowdkit\.")
        yield


@dataclass(frozen=True)
class Aggregation:
    method: str
    labels: dict[Hashable, Hashable]  # task -> aggregated label
    posterior: dict[Hashable, float]  # task -> probability of that label (majority: its share of the votes)
    skill: dict[Hashable, float]  # worker -> estimated skill from 0 to 1 (see each method)

    def mean_posterior(self) -> float | None:
        return sum(self.posterior.values()) / len(self.posterior) if self.posterior else None


@dataclass(frozen=True)
class _Coded:
    frame: pd.DataFrame  # task, worker, label as integer codes
    tasks: list[Hashable]
    workers: list[Hashable]
    labels: list[Hashable]


def _codes(values: Iterable[Hashable], ordered: bool) -> tuple[list[Hashable], dict[Hashable, int]]:
    distinct = list(dict.fromkeys(values))
    if ordered:
        try:
            distinct = sorted(distinct)  # type: ignore[type-var]
        except TypeError:
            pass  # labels that cannot be compared keep the order of their first appearance
    return distinct, {value: code for code, value in enumerate(distinct)}


def _coded(rows: Iterable[Row]) -> _Coded:
    import pandas as pd

    rows = list(rows)
    tasks, task_code = _codes((r[0] for r in rows), ordered=False)
    workers, worker_code = _codes((r[1] for r in rows), ordered=False)
    labels, label_code = _codes((r[2] for r in rows), ordered=True)
    frame = pd.DataFrame({
        "task": [task_code[r[0]] for r in rows],
        "worker": [worker_code[r[1]] for r in rows],
        "label": [label_code[r[2]] for r in rows],
    }, dtype="int64")
    return _Coded(frame, tasks, workers, labels)


def _result(method: str, coded: _Coded, probas: pd.DataFrame, skill: pd.Series[Any]) -> Aggregation:
    """Labels and their probabilities from a task x label probability frame (integer codes), skills by worker."""
    best = probas.to_numpy().argmax(axis=1)  # the first maximum: the smaller label on a tie
    columns = [int(c) for c in probas.columns]
    labels = {coded.tasks[int(t)]: coded.labels[columns[b]] for t, b in zip(probas.index, best, strict=True)}
    posterior = {coded.tasks[int(t)]: float(p) for t, p in zip(probas.index, probas.to_numpy().max(axis=1),
                                                               strict=True)}
    return Aggregation(method, labels, posterior,
                       {coded.workers[int(w)]: float(s) for w, s in skill.items()})


def _empty(method: str) -> Aggregation:
    return Aggregation(method, {}, {}, {})


def majority(rows: Iterable[Row]) -> Aggregation:
    """The most frequent label per task (a tie goes to the smaller label); a worker's skill is the share of their
    answers that agree with the majority (crowd-kit MajorityVote)."""
    from crowdkit.aggregation import MajorityVote

    coded = _coded(rows)
    if coded.frame.empty:
        return _empty(MAJORITY)
    model = MajorityVote()
    with _crowdkit_quiet():
        model.fit(coded.frame)
    assert model.probas_ is not None and model.skills_ is not None
    probas = model.probas_.sort_index(axis=1)
    return _result(MAJORITY, coded, probas, model.skills_)


def dawid_skene(rows: Iterable[Row], n_iter: int = 100, tol: float = 1e-5) -> Aggregation:
    """Dawid-Skene (crowd-kit DawidSkene, EM from the majority vote): per task the most probable label and its
    posterior probability; a worker's skill is their estimated accuracy, the diagonal of their confusion matrix
    weighted by the label priors: sum over labels c of prior(c) * P(worker answers c | the label is c)."""
    from crowdkit.aggregation import DawidSkene

    coded = _coded(rows)
    if coded.frame.empty:
        return _empty(DAWID_SKENE)
    model = DawidSkene(n_iter=n_iter, tol=tol)
    with _crowdkit_quiet():
        model.fit(coded.frame)
    assert model.probas_ is not None and model.errors_ is not None and model.priors_ is not None
    probas = model.probas_.sort_index(axis=1)
    return _result(DAWID_SKENE, coded, probas, _accuracy(model.errors_, model.priors_))


def _accuracy(errors: pd.DataFrame, priors: pd.Series[Any]) -> pd.Series[Any]:
    """Per worker sum_c prior(c) * errors[(worker, c), c]: errors is indexed by (worker, answered label) with a
    column per true label; a label a worker never gave has no row (probability 0)."""
    import numpy as np
    import pandas as pd

    answered = errors.index.get_level_values("label")
    columns = errors.columns.get_indexer(answered)
    diagonal = errors.to_numpy()[np.arange(len(errors)), columns]
    weighted = diagonal * priors.reindex(answered).fillna(0.0).to_numpy()
    per_worker = pd.Series(weighted, index=errors.index.get_level_values("worker")).groupby(level=0).sum()
    return per_worker.clip(0.0, 1.0)


def mace(rows: Iterable[Row], seed: int = 0, n_iter: int = 50) -> Aggregation:
    """MACE (Hovy et al. 2013; crowd-kit MACE, variational Bayes): per task the most probable label and its
    probability; a worker's skill is their competence, the posterior probability that they answer what they know
    rather than spam (crowd-kit's spamming_[:, 1]; its thetas_ is the spammer's label distribution, not the
    competence). Seeded: crowd-kit starts every restart from the same seed, so one restart is made."""
    import pandas as pd
    from crowdkit.aggregation import MACE as CrowdMace

    coded = _coded(rows)
    if coded.frame.empty:
        return _empty(MACE)
    model = CrowdMace(n_restarts=1, n_iter=n_iter, random_state=seed)
    with _crowdkit_quiet():
        model.fit(coded.frame)
    assert model.probas_ is not None
    probas = model.probas_.sort_index(axis=1)
    _, order = pd.factorize(coded.frame["worker"])  # the workers in the order crowd-kit numbers them
    competence = pd.Series(model.spamming_[:, 1], index=order)
    return _result(MACE, coded, probas, competence)
