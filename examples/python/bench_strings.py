"""String work: joining, formatting, searching."""
import perflab

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon"] * 20


@perflab.benchmark(baseline=True)
def join():
    return ",".join(WORDS)


@perflab.benchmark
def concat_loop():
    s = ""
    for w in WORDS:
        s += w + ","
    return s


@perflab.arguments(10, 1000)
@perflab.benchmark
def format_ints(count):
    return ["%d" % i for i in range(count)]


TEXT = "lorem ipsum dolor sit amet " * 200 + "needle"


@perflab.benchmark(ops=10)
def find_needle():
    """One call performs ten searches (ops=10), so Mean is per search."""
    for _ in range(10):
        TEXT.find("needle")
