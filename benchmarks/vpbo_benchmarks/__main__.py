"""``python -m vpbo_benchmarks ...``: the ``vpbo-benchmark`` command (:mod:`.cli`)."""

from vpbo_benchmarks.cli import main

if __name__ == "__main__":
    main()
