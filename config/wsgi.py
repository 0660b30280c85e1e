"""The WSGI application (gunicorn config.wsgi, and runserver through WSGI_APPLICATION).

Gunicorn runs no system checks, so the application refuses to load with the public development key
outside DEBUG (see config.secret_key)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from config.secret_key import refuse_public_key_outside_debug  # noqa: E402  (needs the settings loaded)

refuse_public_key_outside_debug()
