"""Synthetic data with a known truth, for the tests and the benchmarks alike.

Each generator writes what a tool would have written (IO500 histories, IOR studies, mdtest campaigns) or the
series a detector reads, and returns what it injected, so that an expected value never comes from the code
under test. Plain Python: it imports no app (an import contract in pyproject.toml), and neither the tests nor
the benchmarks own it.
"""
