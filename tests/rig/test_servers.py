"""rig.servers: what the benchmarks and the whole-stack tests read back from the servers they start."""

from rig.servers import ACCESS_LOG_FORMAT, server_times


def test_server_times_are_the_gets_gunicorn_logged_between_two_mark_requests(tmp_path):
    log = tmp_path / "gunicorn.log"
    log.write_text(
        "[2026-11-26 18:00:00 +0000] [1] [INFO] Booting worker with pid: 2\n"
        "access GET /lists/io500/? 200 9000\n"
        "access GET /healthz?mark=start 200 800\n"
        "access GET /lists/io500/?sort=-bw 200 15250\n"
        "access POST /api/v1/uploads/? 202 40000\n"
        "a line some worker printed\n"
        "access GET /runs/4/? 404 3000\n"
        "access GET /healthz?mark=stop 200 700\n"
        "access GET /compare/? 200 1000\n"
    )

    times = server_times(log, between=("/healthz?mark=start", "/healthz?mark=stop"))

    assert times == [("/lists/io500/?sort=-bw", 200, 0.01525), ("/runs/4/", 404, 0.003)]


def test_gunicorn_is_asked_for_the_fields_server_times_reads():
    assert ACCESS_LOG_FORMAT.split() == ["access", "%(m)s", "%(U)s?%(q)s", "%(s)s", "%(D)s"]
