"""``python -m bench NAME [options]``: run one benchmark by its name; ``python -m bench --list`` names them."""

import sys

from bench.registry import BENCHMARKS, entry_point, summary

USAGE = "usage: python -m bench NAME [options]  (python -m bench --list names them; NAME --help gives its options)"


def main(argv: list[str]) -> int | None:
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    if argv[0] in {"-h", "--help"}:
        print(USAGE)
        return 0
    if argv[0] == "--list":
        width = max(map(len, BENCHMARKS))
        for name in BENCHMARKS:
            print(f"{name:<{width}}  {summary(name)}")
        return 0
    name, options = argv[0], argv[1:]
    if name not in BENCHMARKS:
        print(f"python -m bench: no benchmark named {name!r}; python -m bench --list names them", file=sys.stderr)
        return 2
    return entry_point(name)(options)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
