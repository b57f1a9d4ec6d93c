"""The client API's accounts (/api/v1/accounts/...)."""

from . import entities
from .auth import api_view
from .responses import json_response


@api_view(scope="read:accounts")
def verify_credentials(request):
    """GET /api/v1/accounts/verify_credentials: the token's own account, with its
    ``source`` (the bio as written)."""
    base = entities.site_base(request)
    return json_response(entities.credential_account(base, request.user_data))
