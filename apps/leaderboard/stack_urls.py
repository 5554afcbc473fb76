from django.urls import path

from apps.leaderboard import stack_views

urlpatterns = [
    path("stacks/", stack_views.stack_list, name="stack-list"),
    path("stacks/compare/", stack_views.stack_compare, name="stack-compare"),
    path("stacks/<slug:name>/", stack_views.stack_detail, name="stack-detail"),
]
