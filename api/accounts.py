"""The client API's accounts (/api/v1/accounts/...)."""

from . import entities
from .auth import api_view
from .responses import json_response


@api_view(scope="read:accounts")
def verify_credentials(request):
    """GET /api/v1/accounts/verify_credentials: the token's own account."""
    user = request.user
    data = {
        "id": user.id, "login": user.login, "name": user.name, "signup": user.signup,
        "followers": user.followers, "following": user.following, "posts": user.posts,
    }  # fmt: skip
    return json_response(entities.account(entities.site_base(request), data))
