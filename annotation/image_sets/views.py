"""Console pages of the collections (image sets): the list, and a page per collection (thumbnails by keyset pages,
counts of images, boxes and descriptions, source, tags, the campaigns that used its images). Constant queries."""
from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from mturk.views.access import researcher_required

from .models import ImageSet
from .selectors import set_list, set_page

THUMBNAILS_PER_PAGE = 60


@require_GET
@researcher_required
def collections(request: HttpRequest) -> HttpResponse:
    return render(request, "annotation/image_sets/list.html", {"sets": set_list()})


@require_GET
@researcher_required
def collection(request: HttpRequest, pk: int) -> HttpResponse:
    image_set = get_object_or_404(ImageSet, pk=pk)
    after = request.GET.get("after", "0")
    page = set_page(image_set, int(after) if after.isdigit() else 0, THUMBNAILS_PER_PAGE)
    wizard = reverse("campaign-wizard") + "?" + urlencode({"source": "images", "filter-images-set": image_set.name})
    return render(request, "annotation/image_sets/detail.html", {
        "set": page, "after": after if after.isdigit() and after != "0" else "",
        "next_url": f"?after={page.page.next_after}" if page.page.next_after else "", "wizard_url": wizard,
    })
