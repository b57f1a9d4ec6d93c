from django.conf import settings
from django.urls import path

from . import views

# Under MEDIA_URL (a path of this site), without its leading slash.
urlpatterns = [
    path(f"{settings.MEDIA_URL.lstrip('/')}<path:name>", views.serve, name="media"),
]
