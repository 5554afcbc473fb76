"""The claimed system and its operator's run, as the pages' claim specs (tests/security) have them."""

from tests.security.test_claims_off_public_pages import operators_run, pavo  # noqa: F401 (fixtures)
