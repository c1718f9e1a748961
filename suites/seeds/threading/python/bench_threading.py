"""Threading experiments of seeds 000 (".NET 6": Threading), 001 (threading sections of .NET 6/7/8)
and 003 (".NET Core 3.0": Threading), ported to Python's threading, queue, asyncio and
concurrent.futures. Names follow the seeds' methods."""
import asyncio
import concurrent.futures
import queue
import threading

import perflab


def _meta(seed, section, fidelity=None, **extra):
    """Seed tags plus how faithful the port is (suites/seeds/README.md, "Fidelity"); no fidelity
    means not audited yet."""
    meta = {"seed": seed, "section": section, **extra}
    if fidelity:
        meta["fidelity"] = fidelity
    return meta


def _extra(related):
    """Not a method of the seed: no seed tags, so no claim of the seed is checked on it."""
    return {"extra": True, "related": related}


# -- Thread-pool starvation (000 "Threading", a console app with a stopwatch) -------------------

@perflab.params(items=[48], workers=[49])
@perflab.benchmark(name="ThreadPoolStarvation", categories=["threading", "quick"],
                   meta=_meta("000", "Threading", scenario=True, fidelity=(
                       "different: concurrent.futures never injects threads (a pool of cores threads "
                       "deadlocks), so the pool has 49 threads and nothing starves")))
def thread_pool_starvation(items, workers):
    """One invocation = the seed's whole scenario: `items` work items that block until a final work
    item sets an event; time until all are done. concurrent.futures never injects threads, so the
    pool must be big enough (workers = items + 1) or the scenario deadlocks; what is measured is
    starting the threads and releasing them."""
    done = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(done.wait) for _ in range(items)]
        futures.append(pool.submit(done.set))
        concurrent.futures.wait(futures)


# -- CancellationToken register/dispose (000 "Threading") -----------------------------------------
# A CancellationTokenSource ↔ an asyncio Future (what asyncio cancels); Register/Dispose ↔
# add_done_callback/remove_done_callback; a linked source ↔ a future chained to a parent one.

_LOOP = {}


def _loop():
    loop = _LOOP.get("loop")
    if loop is None:
        loop = _LOOP["loop"] = asyncio.new_event_loop()
    return loop


def _cb(fut):
    pass


CANCEL_META = _meta("000", "Threading", "partial: an asyncio Future stands for the CancellationTokenSource (no token type in the stdlib)")
MANY_META = _meta("000", "Threading", "partial: an asyncio Future stands for the CancellationTokenSource (no token type in the stdlib), and 10 000 registrations per call instead of 1 000 000")


@perflab.benchmark(name="CreateTokenDispose", categories=["threading"], meta=_meta(
    "000", "Threading", "partial: no CancellationTokenSource in the stdlib; an asyncio Future created "
    "and cancelled stands for it"))
def create_token_dispose():
    fut = _loop().create_future()
    fut.cancel()


@perflab.benchmark(name="CreateRegisterDispose", categories=["threading"], meta=CANCEL_META)
def create_register_dispose():
    fut = _loop().create_future()
    fut.add_done_callback(_cb)
    fut.remove_done_callback(_cb)


@perflab.benchmark(name="CreateLinkedTokenDispose", categories=["threading"], meta=CANCEL_META)
def create_linked_token_dispose():
    loop = _loop()
    parent = _LOOP.get("parent") or _LOOP.setdefault("parent", loop.create_future())
    child = loop.create_future()

    def link(p, child=child):
        if not child.done():
            child.cancel()
    parent.add_done_callback(link)
    parent.remove_done_callback(link)


MANY = 10000


@perflab.benchmark(name="CreateManyRegisterDispose", ops=MANY, categories=["threading"],
                   meta=MANY_META)
def create_many_register_dispose():
    """One token, 10 000 register/dispose pairs (the seed: 1 000 000; ops keeps it per pair)."""
    fut = _loop().create_future()
    add, remove = fut.add_done_callback, fut.remove_done_callback
    for _ in range(MANY):
        add(_cb)
        remove(_cb)


def _cb2(f):
    pass


def _cb3(f):
    pass


def _cb4(f):
    pass


def _cb5(f):
    pass


@perflab.benchmark(name="CreateManyRegisterMultipleDispose", ops=MANY, categories=["threading"],
                   meta=MANY_META)
def create_many_register_multiple_dispose():
    """Five registrations alive at once, disposed in reverse order, 10 000 times."""
    fut = _loop().create_future()
    add, remove = fut.add_done_callback, fut.remove_done_callback
    for _ in range(MANY):
        add(_cb)
        add(_cb2)
        add(_cb3)
        add(_cb4)
        add(_cb5)
        remove(_cb5)
        remove(_cb4)
        remove(_cb3)
        remove(_cb2)
        remove(_cb)


@perflab.benchmark(name="CancelEvent", categories=["threading"], meta=_extra("000 · Threading"))
def cancel_event():
    """The thread-world form: create a threading.Event, signal it, observe it."""
    ev = threading.Event()
    ev.set()
    return ev.is_set()


# -- SemaphoreSlim.WaitAsync with a token / timeout (000 "Threading") ----------------------------

_SEM = threading.Semaphore(0)
SEM_META = _meta("000", "Threading", "different: a blocking threading.Semaphore released before the "
                 "acquire (the seed's WaitAsync is pending when Release completes it; no token)")


@perflab.benchmark(name="WithCancellationToken", categories=["threading", "quick"], meta=SEM_META)
def with_cancellation_token():
    """Release, then acquire with no timeout (a threading.Semaphore has no token: blocking acquire)."""
    _SEM.release()
    _SEM.acquire()


@perflab.benchmark(name="WithTimeout", categories=["threading"], meta=SEM_META)
def with_timeout():
    """Release, then acquire with a one-minute timeout."""
    _SEM.release()
    _SEM.acquire(timeout=60.0)


async def _acquire_timeout(sem):
    await asyncio.wait_for(sem.acquire(), 60.0)


@perflab.benchmark(name="WithTimeoutAsync", categories=["threading"], meta=_extra("000 · Threading"))
def with_timeout_async():
    """asyncio.Semaphore: release, then await acquire under asyncio.wait_for(…, 60 s)."""
    loop = _loop()
    sem = _LOOP.get("sem")
    if sem is None:
        async def make():
            return asyncio.Semaphore(0)
        sem = _LOOP["sem"] = loop.run_until_complete(make())
    sem.release()
    loop.run_until_complete(_acquire_timeout(sem))


# -- Channels PingPong (003 "Threading") -------------------------------------------------------

class PingPong:
    """Two threads and two queues: 10 000 round trips per call (seed: Channel<int> ping-pong)."""

    def setup(self):
        self.to_echo, self.back = queue.SimpleQueue(), queue.SimpleQueue()
        self.thread = threading.Thread(target=self._echo, daemon=True)
        self.thread.start()

    def _echo(self):
        get, put = self.to_echo.get, self.back.put
        while True:
            item = get()
            if item is None:
                return
            put(item)

    def teardown(self):
        self.to_echo.put(None)
        self.thread.join(5)

    @perflab.benchmark(name="PingPong", ops=10000, categories=["threading", "quick"],
                       meta=_meta("003", "Threading", "faithful"))
    def ping_pong(self):
        put, get = self.to_echo.put, self.back.get
        for i in range(10000):
            put(i)
            get()


# -- Parallel (001 "Parallel", 000) ---------------------------------------------------------------

class Parallel:
    """Parallel.For over a range on a pool of 2 workers (the machine's cores), chunked."""

    params = {"count": [1000]}

    def setup(self):
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)

    def teardown(self):
        self.pool.shutdown(wait=True)

    @perflab.benchmark(name="ParallelFor", categories=["threading"],
                       meta=_extra("001 · Parallel"))
    def parallel_for(self):
        return sum(self.pool.map(_square, range(self.count), chunksize=64))

    @perflab.benchmark(name="ParallelForEachAsync", categories=["threading"],
                       meta=_extra("000 · Threading"))
    def parallel_for_each_async(self):
        """asyncio.gather of `count` tiny coroutines (Parallel.ForEachAsync's shape)."""
        async def body(i):
            return i * i

        async def main():
            return sum(await asyncio.gather(*[body(i) for i in range(self.count)]))
        return _loop().run_until_complete(main())


def _square(i):
    return i * i


# -- ThreadStatic (001) ------------------------------------------------------------------------

_TLS = threading.local()
_TLS.value = 0


@perflab.benchmark(name="Increment", categories=["threading"], meta=_meta("001", "ThreadStatic", "faithful"))
def increment():
    """++t_value on a [ThreadStatic] field ↔ a threading.local attribute."""
    _TLS.value += 1
    return _TLS.value


@perflab.benchmark(name="YieldOnce", categories=["threading"], meta=_meta(
    "001", "Tasks", "partial: each call also enters and leaves the event loop (run_until_complete) around the "
    "awaited asyncio.sleep(0)"))
def yield_once():
    """await Task.Yield() ↔ run a coroutine that awaits asyncio.sleep(0)."""
    async def once():
        await asyncio.sleep(0)
    _loop().run_until_complete(once())


@perflab.benchmark(name="CurrentThread", categories=["threading"], meta=_meta("003", "Threading", "faithful"))
def current_thread():
    return threading.current_thread()
