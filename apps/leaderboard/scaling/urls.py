from django.urls import path

from apps.leaderboard.scaling import views

urlpatterns = [
    path("scaling/", views.scaling_list, name="scaling-list"),
    path("scaling/<int:pk>/", views.scaling_detail, name="scaling-detail"),
]
