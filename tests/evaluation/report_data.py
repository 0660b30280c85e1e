"""A small human evaluation built straight from the models for the read-side tests: items, two systems, the human
reference and the attention checks' corrupted outputs, three judges (crowd assignments from tests.factories), and
judgements whose values follow a rule stated here (so a test can work out what the analysis must say)."""
from __future__ import annotations

from evaluation.models import EvaluatedSystem, EvaluationItem, HumanEvaluation, HumanJudgement, SystemOutput
from mturk.models import Assignment
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.factories import GOOD_TEXT, make_campaign

ITEMS = ["391895", "522418", "184613", "318219"]
SYSTEMS = {"sys-a": EvaluatedSystem.Role.SYSTEM, "sys-b": EvaluatedSystem.Role.SYSTEM,
           "reference": EvaluatedSystem.Role.REFERENCE, "attention": EvaluatedSystem.Role.ATTENTION}
# A rating of a system's output: its base, +1 on odd items, -1 from the third judge (kept in 1..4).
BASE = {"sys-a": 2, "sys-b": 1, "reference": 3, "attention": 1}


def judges(count: int = 3, per_judge: int = 1) -> list[list[Assignment]]:
    """`count` crowd workers, each with `per_judge` submitted assignments (on different HITs)."""
    campaign = make_campaign(images=per_judge, assignments=count)
    result = []
    for _ in range(count):
        worker = new_local_worker()
        result.append([submit_answer(assignment_id=assign_next_hit(campaign, worker).pk,
                                     worker_external_id=worker.external_id, answer={"text": GOOD_TEXT}).assignment
                       for _ in range(per_judge)])
    return result


def rating_value(system: str, item: int, judge: int) -> int:
    return max(1, min(4, BASE[system] + item % 2 - (judge == 2)))


PAIRS = 6  # pairs of the four systems


def build_evaluation(name: str = "captions", *, design: str = "rating",
                     assignments: list[list[Assignment]] | None = None,
                     items: int = len(ITEMS), automatic: bool = True) -> HumanEvaluation:
    """An evaluation with every output judged by each assignment on the "describes" aspect: rating, one
    judgement per output (values from `rating_value`); pairwise, one per pair of outputs of an item (the
    attention system's pairs too, each pair in its own assignment of the judge), the first system of the pair
    preferred except by judge 1, who ties. `assignments`: per judge, 1 (rating) or PAIRS (pairwise)."""
    evaluation = HumanEvaluation.objects.create(name=name, output_kind="caption", test_set="image_set:1",
                                                test_set_label="COCO sample", design=design, aspects=["describes"],
                                                seed="report-tests")
    rows = [EvaluationItem.objects.create(evaluation=evaluation, name=ITEMS[n % len(ITEMS)] + ("" if n < len(ITEMS)
                                          else f"-{n}"), position=n, images=[], references=["a reference"])
            for n in range(items)]
    systems = {}
    for system, role in SYSTEMS.items():
        scores = {}
        if automatic and role != EvaluatedSystem.Role.ATTENTION:
            scores = {"bleu4": {"system": BASE[system] / 10, "items": {item.name: BASE[system] / 10 + n / 100
                                                                      for n, item in enumerate(rows)}}}
        systems[system] = EvaluatedSystem.objects.create(evaluation=evaluation, name=system, role=role,
                                                         file_name=f"{system}.json" if role == "system" else "",
                                                         automatic=scores)
    outputs = {(system, n): SystemOutput.objects.create(system=systems[system], item=item, text=f"{system} {n}")
               for n, item in enumerate(rows) for system in SYSTEMS}
    if assignments is None:
        assignments = judges(per_judge=1 if design == "rating" else PAIRS)
    judgements = []
    for judge, own in enumerate(assignments):
        assignment = own[0]
        for n, item in enumerate(rows):
            if design == "rating":
                for position, system in enumerate(SYSTEMS):
                    judgements.append(HumanJudgement(
                        evaluation=evaluation, assignment=assignment, worker=assignment.worker, item=item,
                        aspect="describes", output=outputs[(system, n)], value=rating_value(system, n, judge),
                        position=position))
            else:
                names = list(SYSTEMS)
                pairs = [(first, second) for i, first in enumerate(names) for second in names[i + 1:]]
                for (first, second), pair_assignment in zip(pairs, own, strict=True):
                    judgements.append(HumanJudgement(
                        evaluation=evaluation, assignment=pair_assignment, worker=pair_assignment.worker, item=item,
                        aspect="describes", output=outputs[(first, n)], other=outputs[(second, n)],
                        preferred=None if judge == 1 else outputs[(first, n)], position=0))
    HumanJudgement.objects.bulk_create(judgements)
    return evaluation
