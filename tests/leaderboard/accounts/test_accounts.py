"""Accounts: sign up with a confirmed address, sign in, reset a password, keep a profile; the operator's approval;
the limits on guessing passwords and on telling which addresses have accounts."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "a sturdy pass phrase 42"


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """allauth counts attempts in the cache: each test starts with none."""
    cache.clear()
    yield
    cache.clear()


def sign_up(client, username="ada", email="ada@example.org"):
    return client.post(
        "/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
        follow=True,
    )


def link_in(message) -> str:
    return re.search(r"https?://testserver(/accounts/\S+/)", message.body).group(1)


def page(response) -> str:
    return response.content.decode()


def test_the_pages_are_reached_by_links_with_their_words(client):
    home = page(client.get("/"))
    assert 'href="/accounts/login/">Sign in</a>' in home
    assert 'href="/accounts/signup/">Sign up</a>' in home
    assert 'href="/accounts/password/reset/">Forgot password</a>' in page(client.get("/accounts/login/"))
    client.force_login(UserFactory())
    assert 'href="/account/">Account</a>' in page(client.get("/"))


def test_a_new_account_signs_in_only_after_confirming_its_address(client):
    answer = sign_up(client)
    assert "Check your mail" in page(answer)
    assert not answer.wsgi_request.user.is_authenticated
    [confirmation] = mail.outbox
    assert confirmation.to == ["ada@example.org"]

    refused = client.post("/accounts/login/", {"login": "ada", "password": PASSWORD}, follow=True)
    assert not refused.wsgi_request.user.is_authenticated

    client.post(link_in(confirmation))
    signed_in = client.post("/accounts/login/", {"login": "ada", "password": PASSWORD}, follow=True)
    assert signed_in.wsgi_request.user.username == "ada"


def test_staff_sign_in_on_the_same_page_with_their_user_name(client):
    staff = UserFactory(username="committee", is_staff=True, email="committee@example.org")
    EmailAddress.objects.create(user=staff, email=staff.email, verified=True, primary=True)  # as migration 0035 does
    answer = client.post("/accounts/login/", {"login": "committee", "password": "pw"}, follow=True)
    assert answer.wsgi_request.user.username == "committee"


def test_sign_up_answers_the_same_for_an_address_that_has_an_account(client):
    UserFactory(username="grace", email="grace@example.org")
    new = page(sign_up(client, "ada", "ada@example.org"))
    taken = page(sign_up(client, "eve", "grace@example.org"))
    assert new == taken
    assert [message.to for message in mail.outbox] == [["ada@example.org"], ["grace@example.org"]]


def test_a_password_reset_answers_the_same_whether_the_address_is_known_or_not(client):
    UserFactory(username="grace", email="grace@example.org")
    known = client.post("/accounts/password/reset/", {"email": "grace@example.org"}, follow=True)
    unknown = client.post("/accounts/password/reset/", {"email": "nobody@example.org"}, follow=True)
    assert page(known) == page(unknown)
    assert "Check your mail" in page(known)


def test_a_password_reset_link_sets_a_new_password(client):
    user = UserFactory(username="grace", email="grace@example.org")
    client.post("/accounts/password/reset/", {"email": "grace@example.org"})
    [message] = mail.outbox
    form = client.get(link_in(message), follow=True)
    client.post(form.redirect_chain[-1][0], {"password1": PASSWORD, "password2": PASSWORD})
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def confirmed_user(username: str):
    user = UserFactory(username=username, email=f"{username}@example.org")
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def test_ten_wrong_passwords_lock_sign_in_even_with_the_right_one(client):
    confirmed_user("grace")
    assert client.post("/accounts/login/", {"login": "grace", "password": "pw"}).status_code == 302
    client.logout()
    for _ in range(10):
        client.post("/accounts/login/", {"login": "grace", "password": "wrong"})
    locked = client.post("/accounts/login/", {"login": "grace", "password": "pw"}, follow=True)
    assert not locked.wsgi_request.user.is_authenticated
    assert "Too many failed login attempts" in page(locked)


def test_the_lock_is_per_account_too_whatever_the_client(client):
    confirmed_user("grace")
    for attempt in range(10):
        client.post("/accounts/login/", {"login": "grace", "password": "wrong"}, REMOTE_ADDR=f"10.0.0.{attempt}")
    locked = client.post("/accounts/login/", {"login": "grace", "password": "pw"}, REMOTE_ADDR="10.0.1.1", follow=True)
    assert not locked.wsgi_request.user.is_authenticated


def test_with_approval_on_a_new_account_confirms_its_address_and_waits_for_staff(client, settings):
    settings.IOBOARD_ACCOUNTS_NEED_APPROVAL = True
    assert "Check your mail" in page(sign_up(client))
    ada = get_user_model().objects.get(username="ada")
    assert not ada.is_active
    client.post(link_in(mail.outbox[0]))
    waiting = client.post("/accounts/login/", {"login": "ada", "password": PASSWORD}, follow=True)
    assert not waiting.wsgi_request.user.is_authenticated
    assert "Waiting for approval" in page(waiting)

    ada.is_active = True
    ada.save()
    approved = client.post("/accounts/login/", {"login": "ada", "password": PASSWORD}, follow=True)
    assert approved.wsgi_request.user.username == "ada"


def test_the_account_page_keeps_a_name_and_an_institution(client):
    user = UserFactory()
    client.force_login(user)
    client.post("/account/", {"name": "Ada Lovelace", "institution": "Analytical Engines", "notify_by_email": "on"})
    shown = page(client.get("/account/"))
    assert 'value="Ada Lovelace"' in shown
    assert 'value="Analytical Engines"' in shown


def test_an_address_is_changed_on_the_email_page_after_confirming_the_new_one(client):
    user = confirmed_user("grace")
    client.force_login(user)
    client.post("/accounts/email/", {"action_add": "", "email": "grace@new.example.org"})
    [confirmation] = mail.outbox
    assert confirmation.to == ["grace@new.example.org"]
    client.post(link_in(confirmation))
    client.post("/accounts/email/", {"action_primary": "", "email": "grace@new.example.org"})
    user.refresh_from_db()
    assert user.email == "grace@new.example.org"
