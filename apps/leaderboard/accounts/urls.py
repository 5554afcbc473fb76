from django.urls import path

from apps.leaderboard.accounts import views

urlpatterns = [
    path("account/", views.account, name="account"),
    path("account/tokens/", views.api_tokens, name="api-tokens"),
    path("account/tokens/<int:pk>/revoke/", views.revoke_token, name="api-token-revoke"),
]
