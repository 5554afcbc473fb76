"""Helpers of the private-until-release specs (issue 37, item 5): readers, bodies compared, the release."""

import re

from rest_framework.test import APIClient

#: The edition alice submits to and staff release by freezing it.
EDITION = "sc26"


def signed_in(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def normalised(response) -> str:
    """The body without what differs between two requests of the same content (the CSRF token's mask, a feed's
    time of reading)."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode()
    text = re.sub(r"<updated>[^<]*</updated>", "", text)  # a feed without entries is updated "now"
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)


def read_all(client, addresses: list[str], **ids) -> dict[str, tuple[int, str]]:
    answers = {}
    for address in addresses:
        response = client.get(address.format(**ids))
        answers[address] = (response.status_code, normalised(response))
    return answers


def release(staff_client, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post("/api/v1/editions/freeze/", {"name": EDITION}, format="json")
    assert response.status_code == 201, response.content
