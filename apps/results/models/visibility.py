"""Who may see what an upload stored: the one definition of "visible to this reader" (issue 37, private until release).

An upload submitted to an edition not yet frozen, or with an embargo date still ahead, is *embargoed*: its runs
(`Run.embargoed`, a copy of `Upload.embargoed` that the list conditions read as a run column) and the rows it
owns (series, studies, their points, stacks) are seen by its account and by staff only, and by nobody else
anywhere: to the others they answer as rows that do not exist. The release (`apps.results.services.embargo`)
clears both flags.

Every surface reads runs through `Run.objects.visible_to(user)` (rows hanging off runs through
`run_visible_condition(user, "run__")`, rows an upload owns through `owned_visible_condition`: a point is judged
by its own upload, so the points an embargoed upload adds to a series or study published before stay hidden); the
maintained list entries hold public runs only (`list_kinds.PUBLIC`), so lists, counts and change detection need
no reader.
"""

from django.apps import apps
from django.db.models import OuterRef, Q, Subquery
from django.db.models.lookups import IsNull

#: A run anybody may see: not embargoed.
PUBLIC_CONDITIONS = {"embargoed": False}


def _sees_everything(user) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_staff)


def _own(user, prefix: str) -> Q | None:
    """What `user`'s uploads stored, as a condition on the upload reached through `prefix`; None for anonymous."""
    if user is None or not user.is_authenticated:
        return None
    return Q(**{prefix + "uploader": user})


def run_visible_condition(user, prefix: str = "") -> Q:
    """The runs (reached through `prefix`, e.g. "run__") `user` may see: public ones, their own, all for staff."""
    if _sees_everything(user):
        return Q()
    public = Q(**{prefix + name: value for name, value in PUBLIC_CONDITIONS.items()})
    own = _own(user, prefix + "upload__")
    return public if own is None else public | own


def owned_visible_condition(user, prefix: str = "") -> Q:
    """Rows an upload owns (a series, a study, a point; `prefix` reaches the row) that `user` may see: stored by
    the operator (no upload), by an upload not embargoed, by their own upload, or any for staff."""
    if _sees_everything(user):
        return Q()
    public = Q(**{prefix + "upload__isnull": True}) | Q(**{prefix + "upload__embargoed": False})
    own = _own(user, prefix + "upload__")
    return public if own is None else public | own


def system_visible_condition(user) -> Q:
    """Storage systems `user` may see: all but those whose runs are all hidden from them (a system an embargoed
    upload created is unknown to others until the release). A system without runs stays visible.

    Each test is a correlated "first such run" subquery, probed per system shown through the run_embargoed_system
    index (embargoed runs only, a few pages) and, for a system that has one, the run table's system index. Written
    as EXISTS, the OR of the two let PostgreSQL hash every embargoed, then every public, run of the table for each
    page of systems: a sequential scan of the run table per page (a quarter of a second at 100k runs)."""
    if _sees_everything(user):
        return Q()
    runs = apps.get_model("results", "Run").objects.filter(system=OuterRef("pk")).order_by().values("pk")
    no_hidden_run = IsNull(Subquery(runs.exclude(**PUBLIC_CONDITIONS)[:1]), True)
    a_visible_run = IsNull(Subquery(runs.filter(run_visible_condition(user))[:1]), False)
    return Q(no_hidden_run) | Q(a_visible_run)
