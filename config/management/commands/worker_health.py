"""`worker_health`: the old name of `check_worker_health`, kept for one release."""


from common.renamed_commands import RenamedCommand

from .check_worker_health import Command as CheckWorkerHealth


class Command(RenamedCommand, CheckWorkerHealth):
    old_name = "worker_health"
    new_name = "check_worker_health"
