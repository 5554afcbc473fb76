from django.urls import path

from apps.leaderboard.runs import views

urlpatterns = [
    path("runs/<int:pk>/", views.run_detail, name="run-detail"),
    path("runs/<int:pk>/upload/", views.run_upload, name="run-upload"),
]
