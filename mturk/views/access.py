"""Who reaches the researcher pages, and where their forms return: shared by every researcher view module."""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required, user_passes_test
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

confirmed_action = require_http_methods(["GET", "POST"])  # GET: the confirmation step, POST: the action


def researcher_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Staff only: anyone else is sent to the login page."""
    @wraps(view)
    @login_required
    @user_passes_test(lambda user: user.is_staff)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return view(request, *args, **kwargs)

    return wrapped


def back_to_form_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Back to the page the form was on (`next`, same site only), else the campaign page."""
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect("campaign-page", pk=pk)
