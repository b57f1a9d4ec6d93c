"""The site's URLs plus a view that fails as a bug would: what tests/test_metrics.py
checks the 500 page and its log lines with (settings.ROOT_URLCONF)."""

from django.urls import path

from socialsite.urls import handler400, handler500, urlpatterns  # noqa: F401


def fail(request):
    raise RuntimeError("on purpose")


urlpatterns = [path("_test/fail/", fail, name="failing"), *urlpatterns]
