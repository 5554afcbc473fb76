"""Cookies over https are Secure even with the redirect off; HSTS preload only when asked for; a policy on pages."""

import subprocess
import sys

import pytest
from django.test import override_settings

from tests.conftest import REPO_ROOT
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PROXIED_HTTPS = {"HTTP_X_FORWARDED_PROTO": "https"}


@pytest.fixture
def behind_a_tls_proxy_without_redirect(settings):
    """The documented proxy setup: SECURE_SSL_REDIRECT=0, SECURE_PROXY_SSL_HEADER=1, cookie settings at default."""
    settings.SECURE_SSL_REDIRECT = False
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False


def test_a_session_cookie_set_over_https_through_the_proxy_is_secure(client, behind_a_tls_proxy_without_redirect):
    user = UserFactory(is_staff=True)
    user.set_password("a long enough password")
    user.save()

    response = client.post(
        "/admin/login/?next=/admin/", {"username": user.username, "password": "a long enough password"}, **PROXIED_HTTPS
    )

    assert response.status_code == 302
    assert response.cookies["sessionid"]["secure"] is True


def test_a_csrf_cookie_set_over_https_through_the_proxy_is_secure(client, behind_a_tls_proxy_without_redirect):
    response = client.get("/admin/login/", **PROXIED_HTTPS)
    assert response.cookies["csrftoken"]["secure"] is True


def test_cookies_over_plain_http_stay_usable_on_loopback(client, behind_a_tls_proxy_without_redirect):
    response = client.get("/admin/login/")
    assert response.cookies["csrftoken"]["secure"] == ""


def _production_setting(name: str, **environment) -> str:
    """A setting as config.settings computes it from a production environment, in a fresh interpreter."""
    env = {"DEBUG": "0", "SECRET_KEY": "x" * 50, "PATH": "/usr/bin:/bin", **environment}
    done = subprocess.run(
        [sys.executable, "-c", f"from config import settings; print(settings.{name})"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_hsts_preload_is_off_unless_asked_for():
    assert _production_setting("SECURE_HSTS_PRELOAD") == "False"
    assert _production_setting("SECURE_HSTS_PRELOAD", SECURE_HSTS_PRELOAD="1") == "True"
    assert _production_setting("SECURE_HSTS_SECONDS") == "31536000"


@pytest.mark.parametrize(("preload", "header"), [(False, "max-age=3600"), (True, "max-age=3600; preload")])
def test_the_hsts_header_asks_for_preload_only_when_set(client, preload, header):
    with override_settings(SECURE_HSTS_SECONDS=3600, SECURE_HSTS_INCLUDE_SUBDOMAINS=False, SECURE_HSTS_PRELOAD=preload):
        assert client.get("/lists/io500/", secure=True)["Strict-Transport-Security"] == header


def test_pages_carry_a_policy_without_inline_scripts_or_remote_origins(client):
    policy = client.get("/lists/io500/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert "unsafe" not in policy
