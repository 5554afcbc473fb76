"""Loading the runs the run diff compares (`apps.results.judgements.diff`), with everything it reads in
a fixed number of queries, in the order asked for.
"""

from apps.results.models import Run


def load_runs(ids, reader=None) -> list:
    """The runs with these ids, in this order, with everything diff_runs reads: a constant number of queries.

    Raises Run.DoesNotExist naming the ids that are unknown, or hidden from `reader` (None: anonymous).
    """
    ids = [int(pk) for pk in ids]
    found = Run.objects.visible_to(reader).with_details().in_bulk(ids)
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise Run.DoesNotExist(f"no run with id {', '.join(map(str, missing))}")
    return [found[pk] for pk in ids]
