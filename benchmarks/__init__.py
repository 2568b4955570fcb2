"""Speed benchmarks: each ``bench_NAME.py`` module compares minidb with its peers in one run and prints ratios.

Run them with ``make bench`` or ``python -m benchmarks [NAME ...] [-- options]``. They are not tests: speed is
reported, never asserted, because it depends on the machine; ratios against a peer measured in the same run are
what carry over between machines.
"""
