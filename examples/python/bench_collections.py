"""Dictionary and list work with parameters: the kind of table the seeds' "Collections" sections show."""
import perflab

KEYS = [f"key{i}" for i in range(1000)]


@perflab.params(size=[10, 1000])
class Dictionary:
    """Lookups, copies and building of dictionaries of `size` string keys."""

    def setup(self):
        self.data = {k: i for i, k in enumerate(KEYS[: self.size])}
        self.key = KEYS[self.size // 2]

    @perflab.benchmark(baseline=True)
    def lookup(self):
        return self.data[self.key]

    @perflab.benchmark
    def copy(self):
        return dict(self.data)

    @perflab.benchmark
    def build(self):
        return {k: i for i, k in enumerate(KEYS[: self.size])}


_DATA = {}


def _make_list(n):
    _DATA["list"] = list(range(n))


@perflab.params(n=[100, 10_000])
@perflab.benchmark(categories=["list"], setup=_make_list)
def sum_list(n):
    """Sum a list built once per case by its setup function (which gets the same parameters)."""
    return sum(_DATA["list"])


@perflab.params(n=[100, 10_000])
@perflab.benchmark(categories=["list", "alloc"])
def list_comprehension(n):
    """Allocates a new list of n ints on every call: shows in the Allocated column."""
    return [i * 2 for i in range(n)]
