"""A page's query parameters read the one way every app reads them."""

from django.core.exceptions import BadRequest

from socialsite.repository.ids import parse_cursor


def page_cursor(request, name="before"):
    """The number given as ``name`` (a paged list's ``before`` cursor, by default) in the
    query string, or None when absent (the first page); BadRequest (400) for a malformed
    one."""
    if not request.META.get("QUERY_STRING"):
        return None  # the first page, most often: no QueryDict to build
    value = request.GET.get(name)
    if value is None:
        return None
    cursor = parse_cursor(value)
    if cursor is None:
        raise BadRequest(f"The page link is malformed: '{name}' must be a number.")
    return cursor
