"""Views of the project itself rather than of one app."""

from django.http import HttpResponse
from django.views.decorators.http import require_safe


@require_safe
def healthz(request):
    """Liveness check for load balancers and process supervisors: "ok" while this
    process answers requests.

    It touches no Redis on purpose: a Redis outage must not make every web process
    look dead and get restarted (the pages show their own errors then). It is also
    the cheapest request Django serves, which makes it the benchmarks' baseline.
    """
    response = HttpResponse("ok", content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response
