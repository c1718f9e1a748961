"""An empty benchmark: perflab must say it is indistinguishable from empty, with an interval."""
import perflab


@perflab.benchmark
def empty():
    pass
