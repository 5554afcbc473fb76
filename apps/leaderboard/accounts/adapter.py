"""django-allauth's adapter with the operator's approval: with IOBOARD_ACCOUNTS_NEED_APPROVAL a new account is
made inactive, gets its confirmation mail all the same, and waits until staff make it active in the admin."""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.models import EmailAddress
from django.conf import settings
from django.shortcuts import redirect


class AccountAdapter(DefaultAccountAdapter):
    def save_user(self, request, user, form, commit=True):
        user = super().save_user(request, user, form, commit=False)
        user.is_active = not settings.IOBOARD_ACCOUNTS_NEED_APPROVAL
        if commit:
            user.save()
        return user

    def pre_login(self, request, user, **kwargs):
        """A new account waiting for approval is not signed in, but its address is confirmed as any other's: the
        sign-up answers as it does for an active account (the page does not tell the approval from an address
        already taken)."""
        if kwargs.get("signup") and not user.is_active:
            for address in EmailAddress.objects.filter(user=user, verified=False):
                address.send_confirmation(request, signup=True)
            return redirect("account_email_verification_sent")
        return super().pre_login(request, user, **kwargs)
