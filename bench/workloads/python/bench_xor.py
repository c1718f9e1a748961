"""AB_SIZE × 20 XORs of small ints per call (CPython's cached ints: nothing is allocated)."""
import os

import perflab

SIZE = int(os.environ.get("AB_SIZE") or 100)
DATA = [i & 63 for i in range(20 * SIZE)]


@perflab.benchmark
def work():
    total = 0
    for x in DATA:
        total ^= x
    return total
