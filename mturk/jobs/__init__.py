"""The job queue: one mechanism for every background job (a BackgroundJob row run by a Celery task).

- `dispatch(job)`: in the request that stores the job, hand it to the broker once the transaction commits. A
  broker that cannot be reached is logged, never raised: the job stays queued, `handed_off_at` empty, and the
  sweeper sends it when the broker is back.
- `with running(job) as run:` (running.py): a job's run, from start to end. It takes the job atomically
  (`claim`: queued, or running with its lease run out), renews its lease while it works (`lease`: a heartbeat),
  and writes its end (`finish`): done, or failed with the reason when the block raises. A job already done or
  failed, or running under another run's live lease, that is delivered again yields None and does nothing.
- `sweep()`: sends what was never handed off, takes up running jobs whose worker died (lease run out) and fails
  them with the reason after settings.JOB_MAX_ATTEMPTS runs. Run by celery beat, when a worker starts and by
  `manage.py sweep_jobs`.
- `send_after_commit(task_name, *args)`: the fire-and-forget tasks (thumbnails, marketplace publishing…): a broker
  error is logged, not raised; a periodic task or an action derives their work again (docs/deployment.md lists
  which). Their base class (`fire.FireAndForget`; for a campaign's tasks
  `mturk.services.campaign_tasks.CampaignTask`) records a failure in the job log and where the researcher looks,
  and promises a retry only when a broker will run it.

Work is handed to Celery by the task's registered name (`send_after_commit("mturk.tasks.publish_new_hits", pk)`,
a job model's `job_task`, `task_named(name)` for the rest), never by importing a `tasks` module: only the tasks
modules import the services they call, so no import loop exists at run time. An unknown name raises
(`UnknownTask`), and a test checks every name the code queues against the registered tasks.
"""
from .fire import BY_THE_SYNC, FireAndForget, Handoff
from .lease import claim, finish, lease, lease_expired_before, touch
from .names import UnknownTask, task_named
from .queue import dispatch, hand_off, job_models, send_after_commit
from .running import Run, running
from .sweeper import SweepReport, sweep

__all__ = ["BY_THE_SYNC", "FireAndForget", "Handoff", "Run", "SweepReport", "UnknownTask", "claim",
           "dispatch", "finish", "hand_off", "job_models", "lease", "lease_expired_before", "running",
           "send_after_commit", "sweep", "task_named", "touch"]
