"""OpsAgent benchmarks: measured, not asserted. ``python -m bench [--full]`` (or ``make bench``)."""
