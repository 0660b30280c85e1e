"""The job queue: one mechanism for every background job (a BackgroundJob row run by a Celery task).

- `dispatch(job)`: in the request that stores the job, hand it to the broker once the transaction commits. A
  broker that cannot be reached is logged, never raised: the job stays queued, `handed_off_at` empty, and the
  sweeper sends it when the broker is back.
- `claim(job)` / `lease(job)`: a run takes the job atomically (queued, or running with its lease run out) and
  renews its lease while it works (a heartbeat), so that a job never runs twice at once and a job already done or
  failed that is delivered again does nothing.
- `sweep()`: sends what was never handed off, takes up running jobs whose worker died (lease run out) and fails
  them with the reason after settings.JOB_MAX_ATTEMPTS runs. Run by celery beat, when a worker starts and by
  `manage.py sweep_jobs`.
- `send_after_commit(task, *args)`: the fire-and-forget tasks (thumbnails, marketplace publishing…): a broker
  error is logged, not raised; a periodic task or an action derives their work again (docs/deployment.md lists
  which). Their base class (`fire.FireAndForget`; for a campaign's tasks
  `mturk.services.campaign_tasks.CampaignTask`) records a failure in the job log and where the researcher looks,
  and promises a retry only when a broker will run it.
"""
from .fire import BY_THE_SYNC, FireAndForget, Handoff
from .lease import claim, finish, lease, lease_expired_before, touch
from .queue import dispatch, hand_off, job_models, send_after_commit
from .sweeper import SweepReport, sweep

__all__ = ["BY_THE_SYNC", "FireAndForget", "Handoff", "SweepReport", "claim", "dispatch", "finish",
           "hand_off", "job_models", "lease", "lease_expired_before", "send_after_commit", "sweep", "touch"]
