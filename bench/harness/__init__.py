"""What the benchmarks share beyond the rig: their output (tables, JSON, the machine), statistics, timed
children, the ingest as a benchmark sees it, and Django set up in the benchmark's own process."""
