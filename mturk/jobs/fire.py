"""Fire-and-forget tasks (queued after commit without a job row, `send_after_commit`): what a failure becomes.

A task of this kind names what it does (`label`) and what does its work again when it is not retried
(`recovery`). Its failure is one line in the job log (`job <task> failed: <reason>`) and, through `record`, where
the researcher looks (a campaign's tasks: the campaign's last background error, on its page and in the API).

A retry is promised only when something will run it: with a broker, a task's `autoretry_for` errors are retried
after its backoff, and the line says when; run in-process (no broker: `task_always_eager`), nothing would run a
retry, so the first failure is final and reported as such, never as `celery.exceptions.Retry`."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from celery import Task

log = logging.getLogger(__name__)
# The recovery of the marketplace tasks whose work the periodic marketplace sync derives again.
BY_THE_SYNC = ("the marketplace sync does it (every few minutes with a task queue; by hand: "
               "`manage.py sync_assignments`)")


def reason_of(exc: BaseException) -> str:
    """The failure in one line: the exception's message (its class name when it has none)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


@dataclass
class Handoff:
    """A fire-and-forget task asked for in this transaction. `in_process`: it runs here when the transaction
    commits (no broker); then `ran` and `error` say how that went. Otherwise it is handed to the broker when the
    transaction commits (`sent` False: the broker could not be reached; the task's recovery does the work)."""

    task: str
    label: str
    in_process: bool
    sent: bool | None = None  # None: to be handed to the broker when the transaction commits
    ran: bool = False
    error: str = ""  # the in-process run's failure, as recorded

    @property
    def queued(self) -> bool:
        """On (or on its way to) the task queue: not done yet. False once the broker could not take it."""
        return not self.in_process and self.sent is not False


class FireAndForget(Task):
    """Base of the fire-and-forget tasks (`@shared_task(base=FireAndForget, label=..., recovery=...)`)."""

    label = ""  # what the task does, in words ("Prolific study creation")
    recovery = ""  # what does the work again once the task has failed for good

    def describe(self) -> str:
        return self.label or self.name

    def retry(self, args: Any = None, kwargs: Any = None, exc: BaseException | None = None, throw: bool = True,
              eta: Any = None, countdown: Any = None, max_retries: Any = None, **options: Any) -> Any:
        if self.request.is_eager and exc is not None:
            raise exc  # in-process: nothing would run the retry, so this failure is the task's end
        return super().retry(args=args, kwargs=kwargs, exc=exc, throw=throw, eta=eta, countdown=countdown,
                             max_retries=max_retries, **options)

    def failure_line(self, exc: BaseException, *, retry_in: float | None = None, attempt: int = 1,
                     in_process: bool = False) -> str:
        """What a failure says: the cause, and whether and when the work is tried again."""
        line = f"{self.describe()} failed: {reason_of(exc)}"
        if retry_in is not None:
            total = (self.max_retries or 0) + 1
            return f"{line} (attempt {attempt} of {total}); tried again automatically in {round(retry_in)} s"
        if in_process and isinstance(exc, tuple(getattr(self, "autoretry_for", None) or ())):
            # a worker would have tried again later; here nothing would run that retry
            return f"{line}; not tried again (tasks run in-process, without a task queue): {self.recovery}"
        if attempt > 1:
            return f"{line}; given up after {attempt} attempts: {self.recovery}"
        return f"{line}; {self.recovery}"

    def failed(self, args: Any, exc: BaseException, *, retry_in: float | None = None, attempt: int = 1,
               in_process: bool = False) -> str:
        """Log and record a failure; returns its line."""
        line = self.failure_line(exc, retry_in=retry_in, attempt=attempt, in_process=in_process)
        log.error("job %s: %s", self.name, line, extra={"job": self.name, "error": line})
        try:
            self.record(tuple(args or ()), line)
        except Exception:  # the record is a courtesy: the log line above already holds the failure
            log.exception("the failure of %s%r could not be recorded", self.name, tuple(args or ()))
        return line

    def record(self, args: tuple[Any, ...], line: str) -> None:
        """Store the failure where the researcher looks (default: the job log only)."""

    def succeeded(self, args: tuple[Any, ...]) -> None:
        """Clear what `record` stored, once the work is done."""

    # Celery's hooks, called by a worker (in-process runs are reported by send_after_commit)
    def on_retry(self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        """`exc`: the cause; `einfo` holds the Retry, which knows when the retry comes (a countdown or a time)."""
        retry = getattr(einfo, "exception", None)
        retry = getattr(retry, "exc", retry)  # billiard wraps it (ExceptionWithTraceback)
        when = getattr(retry, "when", None)
        if isinstance(when, datetime):
            retry_in = max(0.0, (when - datetime.now(when.tzinfo)).total_seconds())
        else:
            retry_in = float(when) if isinstance(when, int | float) else 0.0
        self.failed(args, exc, retry_in=retry_in, attempt=self.request.retries + 1)

    def on_failure(self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        self.failed(args, exc, attempt=self.request.retries + 1)

    def on_success(self, retval: Any, task_id: str, args: Any, kwargs: Any) -> None:
        self.succeeded(tuple(args or ()))


def run_in_process(task: Any, args: tuple[Any, ...], handoff: Handoff) -> None:
    """Run a fire-and-forget task here (no broker); a failure is recorded, not raised at whoever committed."""
    try:
        task.apply(args=args, throw=True)
    except Exception as exc:
        if isinstance(task, FireAndForget):
            handoff.error = task.failed(args, exc, in_process=True)
        else:
            handoff.error = f"{handoff.label} failed: {reason_of(exc)}"
            log.exception("job %s: %s", task.name, handoff.error)
    else:
        handoff.ran = True
