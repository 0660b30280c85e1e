"""MTurk's page: the task page inside MTurk's iframe (included by mturk.urls)."""
from django.urls import path

from . import views

urlpatterns = [
    path("mt/task/", views.task_page, name="mturk-task"),
]
