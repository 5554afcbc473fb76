from django.urls import path

from apps.leaderboard.submissions import views

urlpatterns = [
    path("upload/", views.upload, name="upload"),
    path("upload/replace/<int:supersedes>/", views.upload, name="upload-corrected"),
    path("submissions/", views.my_submissions, name="my-submissions"),
    path("submissions/<int:pk>/", views.submission, name="submission"),
    path("submissions/<int:pk>/status/", views.submission_status, name="submission-status"),
    path("submissions/<int:pk>/withdraw/", views.withdraw_submission, name="submission-withdraw"),
]
