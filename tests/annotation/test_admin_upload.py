"""Uploading images through the admin."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Image
from tests.factories import image_bytes

pytestmark = pytest.mark.django_db


def test_admin_upload_imports_good_files_and_reports_bad_ones(client, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "root@example.org", "pw-123456")
    client.force_login(admin)
    assert client.get("/admin/annotation/image/upload/").status_code == 200
    files = [SimpleUploadedFile("one.png", image_bytes(), "image/png"),
             SimpleUploadedFile("bad.jpg", b"nope", "image/jpeg")]
    response = client.post("/admin/annotation/image/upload/", {"files": files}, follow=True)
    page = response.content.decode()
    assert "1 imported, 0 already known." in page
    assert "Refused bad.jpg: not an image" in page
    assert list(Image.objects.values_list("original_name", flat=True)) == ["one.png"]
    assert "Upload images or a zip" in client.get("/admin/annotation/image/").content.decode()
