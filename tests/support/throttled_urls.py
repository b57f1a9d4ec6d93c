"""The site's URLs plus a view throttled as a search page is: what
tests/test_views_throttles.py checks the decorator with (pytest.mark.urls)."""

from django.http import HttpResponse
from django.urls import path

from socialsite.throttling import throttle
from socialsite.urls import handler400, handler500, urlpatterns  # noqa: F401


@throttle("search", methods=("GET",))
def search(request):
    return HttpResponse(f"results for {request.GET.get('q', '')!r}", content_type="text/plain")


urlpatterns = [path("_test/search/", search), *urlpatterns]
