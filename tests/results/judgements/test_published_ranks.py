"""A published list beside the list its runs' recomputed scores make: each linked entry's place and move."""

from apps.results.judgements.published_ranks import (
    LISTED_TWICE,
    NO_SCORE,
    NOT_ELIGIBLE,
    LinkedEntry,
    rank_moves,
)


def test_entries_swap_places_when_the_files_give_the_second_a_higher_score():
    moves = rank_moves(
        [
            LinkedEntry(key=10, run=1, published_rank=1, recomputed_score=50.0),
            LinkedEntry(key=11, run=2, published_rank=2, recomputed_score=80.0),
            LinkedEntry(key=12, run=3, published_rank=3, recomputed_score=10.0),
        ]
    )
    assert [(m.key, m.published_place, m.reconstructed_rank, m.move) for m in moves] == [
        (10, 1, 2, -1),
        (11, 2, 1, 1),
        (12, 3, 3, 0),
    ]


def test_places_count_linked_entries_only_so_a_gap_in_published_ranks_is_no_move():
    moves = rank_moves(
        [
            LinkedEntry(key=1, run=1, published_rank=2, recomputed_score=9.0),
            LinkedEntry(key=2, run=2, published_rank=7, recomputed_score=3.0),
        ]
    )
    assert [(m.published_place, m.reconstructed_rank, m.move) for m in moves] == [(1, 1, 0), (2, 2, 0)]


def test_a_run_listed_twice_an_ineligible_run_and_a_run_without_a_score_get_no_rank():
    moves = rank_moves(
        [
            LinkedEntry(key=1, run=1, published_rank=1, recomputed_score=5.0),
            LinkedEntry(key=2, run=1, published_rank=2, recomputed_score=5.0),
            LinkedEntry(key=3, run=2, published_rank=3, recomputed_score=99.0, eligible=False),
            LinkedEntry(key=4, run=3, published_rank=4, recomputed_score=None),
            LinkedEntry(key=5, run=4, published_rank=5, recomputed_score=1.0),
        ]
    )
    assert [(m.key, m.reconstructed_rank, m.move, m.reason) for m in moves] == [
        (1, 1, 0, ""),
        (2, None, None, LISTED_TWICE),
        (3, None, None, NOT_ELIGIBLE),
        (4, None, None, NO_SCORE),
        (5, 2, 3, ""),
    ]
