"""Default thresholds of the anomaly rules; ``settings.IOBOARD_ANOMALY_THRESHOLDS`` overrides them.

The ratio thresholds are calibrated on the public IO500 corpus by ``python -m bench anomaly_calibration``
(see ``docs/anomalies.md``): each is five times the 90th percentile of that ratio over all runs,
rounded to two significant digits. The 90th percentile describes the spread of legitimate
architectures (flash, DoM, replicated storage) and is not moved by the handful of cached runs in
the top few percent; a cache that answers without a server round trip is an order of magnitude
beyond it. The other values are rules of the benchmark itself.
"""

RATIO_QUANTILE = 0.90
RATIO_MULTIPLE = 5.0  # a ratio threshold is RATIO_MULTIPLE x the RATIO_QUANTILE quantile of the ratio

DEFAULT_THRESHOLDS: dict[str, float | str] = {
    # above_measured_ceiling: a bandwidth phase / the ceiling its storage system's stack was measured to
    # deliver (the bottom-up campaign's over-ceiling factor, apps/results/judgements/stacks/semantics.py)
    "measured_ceiling_factor": 1.10,
    # cache_effect_stat: stat rate / create rate of the same files
    "stat_over_create_easy": 48.0,
    "stat_over_create_hard": 220.0,
    # cache_effect_read: read rate / write rate of the same data
    "read_over_write_ior_easy": 9.6,
    "read_over_write_ior_hard": 44.0,
    "read_over_write_mdtest_hard": 88.0,
    # cache_effect_stat / cache_effect_read (anomalies/cache_physics.py): the weight of each piece of
    # supporting cache evidence; with total weight W a ratio of p90 x RATIO_MULTIPLE ** (1 / (1 + W))
    # suffices. Fitted without labels by calibration.fit_cache_weights: log(1/share) / log(10), at
    # most 1, where share is how often the piece occurs among the corpus runs (smoothed)
    "cache_weight_ior_own_data": 1.0,  # an IOR read without task reordering (-C, -Z)
    "cache_weight_memory_fits": 0.3,  # the data read per node fits in the declared client memory
    "cache_weight_sibling_read": 0.69,  # the other IOR read is also beyond the p90 of its ratio
    # random_read_faster_than_sequential: 4 KiB random reads of the ior-easy files / sequential reads
    "random_over_sequential_read": 1.0,
    # write_phase_under_minimum: IO500 rule (30 s under the student cluster competition rules)
    "write_phase_minimum_seconds": 300.0,
    "write_phase_minimum_seconds_scc": 30.0,
    # reported_score_mismatch: multiple of the error that printing precision alone can explain
    "score_tolerance_safety_factor": 2.0,
    # stonewall_inflated_rate: rate x time / items really created (SC18 lists corrected above 1.5)
    "stonewall_inflation_ratio": 1.5,
    # rank_imbalance: (slowest - fastest rank runtime) / slowest, per phase with per-rank CSVs. Drishti
    # flags 0.30 (its imbalance threshold); the procedure keeps that as a floor and raises it to the
    # 95th percentile of the corpus phases (calibration.fit_rank_imbalance), as IO500 write phases
    # with stonewall wear-out spread by design.
    "rank_time_imbalance": 0.48,
    # stat_without_rank_shift: io500.sh passes "-N 1" to mdtest from this date (commit of 2019-07-26)
    "rank_shift_required_from": "2019-07-26",
}
