"""The container's health check: exit 0 when gunicorn answers http://127.0.0.1:8000/healthz with 200.

Run by the Dockerfile's HEALTHCHECK inside the container. It asks over plain HTTP on loopback, as the
host 127.0.0.1 (one of `IOBOARD_HEALTHCHECK_HOSTS`); /healthz is exempt from the https redirect. A
redirect is a failure, not something to follow: it means the deployment would send the check away.
"""

import os
import sys
import urllib.error
import urllib.request

URL = os.environ.get("IOBOARD_HEALTHCHECK_URL", "http://127.0.0.1:8000/healthz")


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # urllib then raises HTTPError with the 3xx status


def main() -> int:
    opener = urllib.request.build_opener(_RefuseRedirects)
    try:
        with opener.open(URL, timeout=4) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    except OSError as error:
        print(f"healthcheck: {URL}: {error}", file=sys.stderr)
        return 1
    if status != 200:
        print(f"healthcheck: {URL} answered {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
