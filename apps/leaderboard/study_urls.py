from django.urls import path

from apps.leaderboard import study_views

urlpatterns = [
    path("studies/", study_views.study_list, name="study-list"),
    path("studies/<int:pk>/", study_views.study_detail, name="study-detail"),
]
