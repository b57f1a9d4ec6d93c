"""Views of the project itself rather than of one app."""

from django.http import HttpResponse
from django.views.decorators.http import require_safe

from socialsite.connection import get_redis
from socialsite.repository.client import OUTAGE_ERRORS, ping_every_node


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


@require_safe
def readyz(request):
    """Readiness check: whether this process can serve pages now, with each dependency's
    state, one a line ("redis: ok"); 503 naming the one that is down.

    Point a load balancer's readiness probe here (take the process out of rotation
    while Redis is unreachable), its liveness probe at /healthz (do not restart it).
    """
    try:
        ping_every_node(get_redis())
        line, status = "redis: ok", 200
    except OUTAGE_ERRORS as error:
        line, status = f"redis: unreachable ({type(error).__name__}: {error})", 503
    response = HttpResponse(line + "\n", content_type="text/plain; charset=utf-8", status=status)
    response["Cache-Control"] = "no-store"
    return response
