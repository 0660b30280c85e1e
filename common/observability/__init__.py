"""What a deployment watches: request ids carried from a request into its log lines and the jobs it queues
(request_id), JSON log lines (logs), Prometheus metrics (metrics, metrics_view), the Celery side of both
(celery_signals) and the worker's health checks (worker_health)."""
