"""MTurk iframe arrivals are under the one arrival limit every path shares (mturk.work.throttle).

Fifty made-up worker ids from one address: the first ARRIVAL_RATE get a task page, the others a 429 and no row
(no worker, no assignment). The count is the client's whatever the path: local Start task presses use it up too."""
from __future__ import annotations

import pytest
from django.test import Client

from mturk.models import Assignment, Worker
from tests.factories import make_campaign
from tests.worker_flow import press_start

from .builders import hits_of, published_mturk_campaign
from .helpers import iframe_link

pytestmark = pytest.mark.django_db

CLIENT = "198.51.100.7"


def test_fifty_made_up_worker_ids_from_one_address_get_thirty_task_pages_and_nothing_more(client, stub, settings):
    settings.ARRIVAL_RATE = "30/m"  # the default
    campaign = published_mturk_campaign(images=2, assignments=3)
    hit = hits_of(campaign)[0]

    answers = [client.get(iframe_link(hit, f"A{n:02d}MADEUP", f"3MADEUP{n:023d}"), REMOTE_ADDR=CLIENT)
               for n in range(50)]

    codes = [r.status_code for r in answers]
    assert codes == [200] * 30 + [429] * 20
    assert all("data-token=" in r.content.decode() for r in answers[:30])
    assert answers[30]["Retry-After"] == "60"
    assert Assignment.objects.filter(hit__campaign=campaign).count() == 30
    assert Worker.objects.filter(provider="mturk").count() == 30
    other = client.get(iframe_link(hit, "A99OTHER", "3OTHER000000000000000000000001"), REMOTE_ADDR="198.51.100.8")
    assert other.status_code == 200  # another address has its own count


def test_local_and_mturk_arrivals_of_one_client_share_one_count(client, stub, settings):
    settings.ARRIVAL_RATE = "3/m"
    local = make_campaign(images=3, assignments=2)
    hit = hits_of(published_mturk_campaign(images=1, assignments=3))[0]

    # two new local workers (browsers), then MTurk arrivals, from one address
    assert [press_start(Client(), local, remote_addr=CLIENT).status_code for _ in range(2)] == [303, 303]
    first = client.get(iframe_link(hit, "A01MADEUP", "3MADEUP00000000000000000000001"), REMOTE_ADDR=CLIENT)
    second = client.get(iframe_link(hit, "A02MADEUP", "3MADEUP00000000000000000000002"), REMOTE_ADDR=CLIENT)

    assert (first.status_code, second.status_code) == (200, 429)
    assert press_start(Client(), local, remote_addr=CLIENT).status_code == 429
    assert Assignment.objects.count() == 3
