"""Counted under valgrind by tests/test_count_python_go.py and bench/count_python_go.py."""
from itertools import repeat

import perflab


@perflab.params(n=[1000, 2000])
def bench_work(n):
    x = 0
    for _ in repeat(None, n):
        x = x + 1 if x < 100 else 0   # small ints only: no allocation, the same cost every pass
    return x


def bench_fails():
    raise ValueError("boom under the count")