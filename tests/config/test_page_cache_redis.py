"""The page cache's Redis is not the broker's: its own instance in compose, bounded and evicting old pages only."""

import yaml

from tests.conftest import REPO_ROOT

COMPOSE = yaml.safe_load((REPO_ROOT / "docker" / "compose.yml").read_text())


def server_options(service: dict) -> dict[str, str]:
    command = service.get("command", [])
    return {flag.removeprefix("--"): value for flag, value in zip(command[1::2], command[2::2], strict=False)}


def test_compose_gives_the_page_cache_a_bounded_lru_redis_of_its_own():
    services = COMPOSE["services"]
    cache = server_options(services["cache"])

    assert cache["maxmemory-policy"] == "allkeys-lru"
    assert cache["maxmemory"].rstrip("}").endswith(("mb", "gb"))
    assert server_options(services["redis"]).get("maxmemory-policy", "noeviction") == "noeviction"
    assert services["web"]["environment"]["CACHE_URL"].endswith("redis://cache:6379/0}")
    assert services["migrate"]["depends_on"]["cache"]["condition"] == "service_healthy"  # and so the web's


def test_the_deployment_guide_sets_the_cache_apart():
    guide = (REPO_ROOT / "docs" / "deployment.md").read_text()

    assert "CACHE_URL" in guide
    assert "allkeys-lru" in guide
