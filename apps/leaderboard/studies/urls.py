from django.urls import path

from apps.leaderboard.studies import views

urlpatterns = [
    path("studies/", views.study_list, name="study-list"),
    path("studies/<int:pk>/", views.study_detail, name="study-detail"),
]
