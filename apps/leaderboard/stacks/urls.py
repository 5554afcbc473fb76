from django.urls import path

from apps.leaderboard.stacks import views

urlpatterns = [
    path("stacks/", views.stack_list, name="stack-list"),
    path("stacks/compare/", views.stack_compare, name="stack-compare"),
    path("stacks/<slug:name>/", views.stack_detail, name="stack-detail"),
]
