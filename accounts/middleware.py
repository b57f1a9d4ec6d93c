from django.utils.functional import SimpleLazyObject

from .auth import get_user


class AuthenticationMiddleware:
    """Set ``request.user``, loaded from Redis only when something looks at it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.user = SimpleLazyObject(lambda: get_user(request))
        return self.get_response(request)
