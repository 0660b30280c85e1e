from django.urls import include, path

from .console.views import dashboard, researcher, review, wizard, worker_pages
from .datasets.views import exports as exports_page
from .datasets.views import imports
from .providers.registry import provider_modules
from .quality.views import gold as gold_page
from .quality.views import needs as quality_needs
from .quality.views import page as quality_page
from .work.views import worker

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("imports/", include(imports.urlpatterns)),
    path("campaigns/new/", include(wizard.urlpatterns)),
    path("campaigns/<int:pk>/review/", include(review.urlpatterns)),
    path("exports/", include(exports_page.urlpatterns)),
    path("campaigns/<int:pk>/quality/", include(quality_page.urlpatterns)),
    path("campaigns/<int:pk>/quality/", include(quality_needs.urlpatterns)),
    path("workers/", include(worker_pages.urlpatterns)),
    path("gold/", include(gold_page.urlpatterns)),
    path("campaigns/<int:pk>/", researcher.campaign_detail, name="campaign-page"),
    path("campaigns/<int:pk>/publish/", researcher.publish, name="campaign-page-publish"),
    path("campaigns/<int:pk>/approve-all/", researcher.approve_all, name="campaign-approve-all"),
    path("campaigns/<int:pk>/assignments/<int:assignment_pk>/review/", researcher.review_assignment,
         name="assignment-review"),
    path("campaigns/<int:pk>/assignments/<int:assignment_pk>/bonus/", researcher.bonus_assignment,
         name="campaign-assignment-bonus"),
    path("campaigns/<int:pk>/workers/<int:worker_pk>/block/", researcher.block_worker,
         name="campaign-worker-block"),
    path("campaigns/<int:pk>/status/", researcher.change_status, name="campaign-page-status"),
    path("campaigns/<int:pk>/add-assignments/", researcher.add_assignments, name="campaign-page-add-assignments"),
    path("campaigns/<int:pk>/sync/", researcher.sync_now, name="campaign-page-sync"),
    path("campaigns/<int:pk>/expire/", researcher.expire_all, name="campaign-page-expire"),
    path("campaigns/<int:pk>/delete-decided/", researcher.delete_decided, name="campaign-page-delete-decided"),
    path("campaigns/<int:pk>/message/", researcher.message, name="campaign-page-message"),
    path("w/<str:token>/", worker.campaign_entry, name="campaign-entry"),
    path("task/", worker.task_page, name="task-page"),
    path("task/submit/", worker.submit, name="task-submit"),
    path("task/return/", worker.return_task, name="task-return"),
    path("task/activity/", worker.task_activity, name="task-activity"),
]
for _module in provider_modules("urls"):  # each provider package's own pages (worker arrivals, webhooks)
    urlpatterns += _module.urlpatterns
