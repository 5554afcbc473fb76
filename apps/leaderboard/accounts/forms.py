"""The account's own forms: its profile, and a new API token."""

from datetime import timedelta

from django import forms
from django.utils import timezone

from apps.results.models import Profile

#: How long a new token lasts, as offered on the tokens page; "never" is the operator's choice per token.
EXPIRY_CHOICES = [("30", "30 days"), ("90", "90 days"), ("365", "one year"), ("", "never")]


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ["name", "institution", "notify_by_email"]
        labels = {"notify_by_email": "Email me when an upload finishes or fails, and when the committee decides"}


class NewTokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="what the token is for, e.g. the machine it lives on")
    expires_in = forms.ChoiceField(choices=EXPIRY_CHOICES, required=False, initial="90", label="Expires in")

    def expires_at(self):
        days = self.cleaned_data.get("expires_in")
        return timezone.now() + timedelta(days=int(days)) if days else None
