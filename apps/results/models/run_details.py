"""A run's related rows, as `RunQuerySet.with_related_rows` prefetches them (a run page, a comparison, the API's run
detail and the history page read them).

Each `Relation` is one `prefetch_related` lookup: one query per relation for all the runs of a page, whatever their
number, through Django's own `Prefetch`. A relation may name an order (the anomalies: errors first) and the columns
it reads (the history page reads five of a phase's thirteen), the others deferred as `.only()` defers them.
"""

from dataclasses import dataclass

from django.apps import apps
from django.db.models import Prefetch


@dataclass(frozen=True)
class Relation:
    """Rows of `model_name` whose foreign key `link` points at a run (`owner` "run") or at a run's Lustre build
    (`owner` "lustre_build"), read through the owner's reverse accessor `accessor`, sorted by `order` (the model's
    own ordering when empty). `fields` reads only those columns (and the id and the link), as `.only()` would."""

    accessor: str
    model_name: str
    link: str = "run"
    owner: str = "run"
    order: tuple = ()
    fields: tuple = ()

    @property
    def path(self) -> str:
        """The `prefetch_related` lookup from a run: "phases", "lustre_build__patches"."""
        return self.accessor if self.owner == "run" else f"{self.owner}__{self.accessor}"

    def prefetch(self) -> str | Prefetch:
        """This relation as a `prefetch_related` lookup."""
        if not (self.order or self.fields):
            return self.path
        rows = apps.get_model("results", self.model_name).objects.all()
        if self.order:
            rows = rows.order_by(*self.order)
        if self.fields:
            rows = rows.only("pk", self.link, *self.fields)
        return Prefetch(self.path, queryset=rows)
