from django.urls import path

from apps.leaderboard.compare import views

urlpatterns = [
    path("compare/", views.compare, name="compare"),
]
