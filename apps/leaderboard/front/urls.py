from django.urls import path

from apps.leaderboard.front import health, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
]
