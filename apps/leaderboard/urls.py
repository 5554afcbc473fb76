from django.urls import path

from apps.leaderboard import health, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
]
