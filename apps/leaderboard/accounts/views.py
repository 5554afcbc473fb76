"""The account's pages: its profile ("Account") and its API tokens ("API tokens")."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.leaderboard.accounts.forms import NewTokenForm, ProfileForm
from apps.results.models import ApiToken, Profile


@login_required
def account(request):
    form = ProfileForm(request.POST or None, instance=Profile.of(request.user))
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Profile saved.")
        return redirect("account")
    return render(request, "account/account.html", {"form": form})


@login_required
def api_tokens(request):
    """The account's tokens; a new one's key is shown in this answer only, never again (only its hash is kept)."""
    form = NewTokenForm(request.POST or None)
    new_key = None
    if request.method == "POST" and form.is_valid():
        _, new_key = ApiToken.issue(request.user, form.cleaned_data["name"], expires_at=form.expires_at())
        form = NewTokenForm()
    tokens = ApiToken.objects.filter(user=request.user)
    response = render(request, "account/api_tokens.html", {"form": form, "tokens": tokens, "new_key": new_key})
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def revoke_token(request, pk: int):
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    token.revoke()
    messages.success(request, f"Token {token.name} revoked.")
    return redirect("api-tokens")
