"""Images in the admin: they are imported in the console, the admin points there."""
import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_image_list_sends_uploads_to_the_console_imports_page(client, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "root@example.org", "pw-123456")
    client.force_login(admin)
    page = client.get("/admin/annotation/image/").content.decode()
    assert f'<a href="{reverse("imports")}">Import images in the console</a>' in page
    assert client.get("/admin/annotation/image/upload/").status_code != 200  # no second way to import
