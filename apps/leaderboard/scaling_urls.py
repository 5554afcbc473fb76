from django.urls import path

from apps.leaderboard import scaling_views

urlpatterns = [
    path("scaling/", scaling_views.scaling_list, name="scaling-list"),
    path("scaling/<int:pk>/", scaling_views.scaling_detail, name="scaling-detail"),
]
