"""What every page's frame needs: the lists of the navigation, read from the list-kind registry."""

from apps.results.models.list_kinds import LIST_KINDS


def navigation(request) -> dict:
    """`nav_lists`: every published list, in registry order, named by its registry label (a new list kind appears
    in the navigation with no template change)."""
    return {"nav_lists": LIST_KINDS.values()}
