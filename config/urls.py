from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    # Sign-up, sign-in (staff too), password reset and email: django-allauth; the account's own pages beside it.
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("apps.api.urls")),
    path("", include("apps.leaderboard.urls")),
]
