"""Error pages a person can read, for the cases Django leaves bare."""

from django.core.exceptions import BadRequest
from django.shortcuts import render
from django.views.defaults import bad_request as django_bad_request


def bad_request(request, exception):
    """400: our own BadRequest messages are written for people, so show them.

    Other 400s (SuspiciousOperation and the like) keep Django's page, which shows no
    detail on purpose.
    """
    if type(exception) is BadRequest:
        return render(request, "400.html", {"exception": str(exception)}, status=400)
    return django_bad_request(request, exception)


class MethodNotAllowedPageMiddleware:
    """Give 405 answers (require_POST and friends) a body saying what happened.

    Django sends them empty; the Allow header it sets is kept.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 405 and not response.content:
            page = render(request, "405.html", status=405)
            page["Allow"] = response.get("Allow", "")
            return page
        return response
