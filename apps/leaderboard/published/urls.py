from django.urls import path

from apps.leaderboard.published import views

urlpatterns = [
    path("published/audit/", views.audit_summary_page, name="published-audit-summary"),
    path("published/<slug:name>/", views.published_edition, name="published-edition"),
    path("published/<slug:name>/changes/", views.change_log_page, name="published-changes"),
    path("published/<slug:name>/<list:kind>/", views.published_edition, name="published-list"),
    path("published/<slug:name>/<list:kind>/audit/", views.list_audit_page, name="published-audit"),
]
