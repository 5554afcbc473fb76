from django.urls import path

from apps.leaderboard.systems import history, views

urlpatterns = [
    path("systems/", views.system_index, name="system-index"),
    path("systems/<int:pk>/", views.system_detail, name="system-detail"),
    path("systems/<int:pk>/history/", history.system_history, name="system-history"),
    path("systems/<int:pk>/history/triage/", history.triage_event, name="system-history-triage"),
    path("systems/<int:pk>/changes/feed/", history.SystemChangesFeed(), name="system-changes-feed"),
    path("changes/feed/", history.ChangesFeed(), name="changes-feed"),
]
