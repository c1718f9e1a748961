"""Seed 002 "File IO improvements in .NET 6", ported to Python's standard library.

Every benchmark is named after the seed's method and keeps its workload and parameters:
the seed's rows (fileSize, userBufferSize): (1 MiB, 512), (1 MiB, 4096), (100 MiB, 4096), WriteAsync also
(1 KiB, 1 KiB), the *_NoBuffering forms (1 MiB, 16384) and (100 MiB, 16384); the seed's stream buffer
(4096 bytes) ↔ `open(..., buffering=4096)`, the seed's `*_NoBuffering` (bufferSize 1) ↔ `buffering=0`.
"Async" forms run the same reads/writes through asyncio's `run_in_executor` (what .NET does on Unix:
a blocking call on a thread-pool thread). The 100 MiB cases are in category "large".
Files live in a temporary folder made by each case's setup and removed by its teardown.
"""
import asyncio
import os
import shutil
import tempfile

import perflab

KiB = 1024
MiB = 1024 * 1024
FOUR_KiB = 4096
SEED = "002"

_S = {}


def _meta(section, fidelity, **extra):
    """Seed tags plus how faithful the port is (suites/seeds/README.md, "Fidelity")."""
    return {"seed": SEED, "section": section, "fidelity": fidelity, **extra}


def _extra(section):
    """Not a method of the seed: no seed tags, so no claim of the seed is checked on it."""
    return {"extra": True, "related": f"{SEED} · {section}"}


FAITHFUL = "faithful"
# issue 39: the seed's .NET 6 claim is that FileStream.Seek stopped calling lseek; CPython's seek
# on a file just opened (an empty buffer, or none) calls lseek on every version, so the change the
# seed measured has no counterpart here
SEEK_NO_COUNTERPART = ("different: CPython calls lseek on every seek of a file just opened, on every "
                       "version; the seed's claim is that .NET 6 stopped calling it")


def _setup(fileSize=MiB, userBufferSize=FOUR_KiB):
    d = tempfile.mkdtemp(prefix="perflab-seed002-")
    src = os.path.join(d, "source.bin")
    chunk = bytes(range(256)) * 4096  # 1 MiB
    with open(src, "wb") as f:
        left = fileSize
        while left > 0:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n
    _S.update(dir=d, src=src, dst=os.path.join(d, "destination.bin"),
              buf=bytearray(userBufferSize), loop=None)


def _teardown():
    loop = _S.pop("loop", None)
    if loop is not None:
        loop.close()
    d = _S.pop("dir", None)
    if d:
        shutil.rmtree(d, ignore_errors=True)


def _setup_async(fileSize=MiB, userBufferSize=FOUR_KiB):
    _setup(fileSize, userBufferSize)
    _S["loop"] = asyncio.new_event_loop()


# -- Seek/Position -----------------------------------------------------------------------------

@perflab.params(fileSize=[KiB], buffering=[FOUR_KiB, 0])
@perflab.benchmark(name="SeekForward", categories=["file_io", "quick"], setup=_setup,
                   teardown=_teardown, meta=_meta("Seek/Position", SEEK_NO_COUNTERPART))
def seek_forward(fileSize, buffering):
    """Open the 1 KiB file and seek to every offset from the beginning (seed: FileStream.Seek)."""
    with open(_S["src"], "rb", buffering=buffering) as f:
        for offset in range(fileSize):
            f.seek(offset, 0)


@perflab.params(fileSize=[KiB], buffering=[FOUR_KiB, 0])
@perflab.benchmark(name="SeekBackward", categories=["file_io"], setup=_setup, teardown=_teardown,
                   meta=_meta("Seek/Position", FAITHFUL))
def seek_backward(fileSize, buffering):
    """Seek to every offset counted from the end (SeekOrigin.End)."""
    with open(_S["src"], "rb", buffering=buffering) as f:
        for offset in range(-1, -fileSize - 1, -1):
            f.seek(offset, 2)


# -- Length ------------------------------------------------------------------------------------

LENGTH_FIDELITY = "partial: how=fstat/seek_end replaces the seed's FileShare axis (nothing caches the length)"


@perflab.params(how=["fstat", "seek_end"])
@perflab.benchmark(name="GetLength", ops=KiB, categories=["file_io"], setup=_setup,
                   teardown=_teardown, meta=_meta("Length", LENGTH_FIDELITY))
def get_length(how):
    """Open the file, then ask for its length 1024 times (ops=1024): os.fstat or seek(0, 2)+tell."""
    with open(_S["src"], "rb", buffering=FOUR_KiB) as f:
        length = 0
        if how == "fstat":
            fd, fstat = f.fileno(), os.fstat
            for _ in range(KiB):
                length = fstat(fd).st_size
        else:
            for _ in range(KiB):
                pos = f.tell()
                length = f.seek(0, 2)
                f.seek(pos, 0)
        return length


# -- Read & Write (sync) -----------------------------------------------------------------------

def _read(fileSize, buffering):
    buf = _S["buf"]
    read = 0
    with open(_S["src"], "rb", buffering=buffering) as f:
        readinto = f.readinto
        while read < fileSize:
            n = readinto(buf)
            if not n:
                break
            read += n
    return read


def _write(fileSize, userBufferSize, buffering):
    buf = _S["buf"]
    with open(_S["dst"], "wb", buffering=buffering) as f:
        write = f.write
        for _ in range(fileSize // userBufferSize):
            write(buf)


# the seed's rows (its result tables; it does not show SyncArguments/AsyncArguments): 1 MiB with a
# 512- or 4096-byte user buffer, 16384 for the unbuffered forms; the 100 MiB rows are in "large" below
SIZES = [MiB]
BUFFERS = [512, 4096]
NOBUFFERING = [16384]
RW_META = _meta("Read & Write", FAITHFUL)
RW_EXTRA = _extra("Read & Write")  # the seed has _NoBuffering only for ReadAsync/WriteAsync


@perflab.params(fileSize=SIZES, userBufferSize=BUFFERS)
@perflab.benchmark(name="Read", categories=["file_io"], setup=_setup, teardown=_teardown,
                   meta=RW_META)
def read(fileSize, userBufferSize):
    """Read the whole file with a user buffer through a 4 KiB stream buffer."""
    return _read(fileSize, FOUR_KiB)


@perflab.params(fileSize=SIZES, userBufferSize=BUFFERS)
@perflab.benchmark(name="Read_NoBuffering", categories=["file_io"], setup=_setup,
                   teardown=_teardown, meta=RW_EXTRA)
def read_nobuffering(fileSize, userBufferSize):
    """As Read, unbuffered (buffering=0: one read(2) per user buffer)."""
    return _read(fileSize, 0)


@perflab.params(fileSize=SIZES, userBufferSize=BUFFERS)
@perflab.benchmark(name="Write", categories=["file_io"], setup=_setup, teardown=_teardown,
                   meta=RW_META)
def write(fileSize, userBufferSize):
    """Create the file and write it with fileSize/userBufferSize writes through a 4 KiB buffer."""
    _write(fileSize, userBufferSize, FOUR_KiB)


@perflab.params(fileSize=SIZES, userBufferSize=BUFFERS)
@perflab.benchmark(name="Write_NoBuffering", categories=["file_io"], setup=_setup,
                   teardown=_teardown, meta=RW_EXTRA)
def write_nobuffering(fileSize, userBufferSize):
    """As Write, unbuffered (buffering=0: one write(2) per user buffer)."""
    _write(fileSize, userBufferSize, 0)


# -- ReadAsync / WriteAsync --------------------------------------------------------------------

async def _read_async(fileSize, buffering):
    loop = asyncio.get_event_loop()
    buf = _S["buf"]
    read = 0
    with open(_S["src"], "rb", buffering=buffering) as f:
        while read < fileSize:
            n = await loop.run_in_executor(None, f.readinto, buf)
            if not n:
                break
            read += n
    return read


async def _write_async(fileSize, userBufferSize, buffering):
    loop = asyncio.get_event_loop()
    buf = _S["buf"]
    with open(_S["dst"], "wb", buffering=buffering) as f:
        for _ in range(fileSize // userBufferSize):
            await loop.run_in_executor(None, f.write, buf)


@perflab.params(fileSize=SIZES, userBufferSize=BUFFERS)
@perflab.benchmark(name="ReadAsync", categories=["file_io"], setup=_setup_async,
                   teardown=_teardown, meta=_meta("ReadAsync", FAITHFUL))
def read_async(fileSize, userBufferSize):
    """Read the whole file, each read awaited through asyncio's default thread-pool executor."""
    return _S["loop"].run_until_complete(_read_async(fileSize, FOUR_KiB))


@perflab.params(fileSize=SIZES, userBufferSize=NOBUFFERING)
@perflab.benchmark(name="ReadAsync_NoBuffering", categories=["file_io"], setup=_setup_async,
                   teardown=_teardown, meta=_meta("ReadAsync", FAITHFUL))
def read_async_nobuffering(fileSize, userBufferSize):
    return _S["loop"].run_until_complete(_read_async(fileSize, 0))


@perflab.params(fileSize=SIZES, userBufferSize=BUFFERS)
@perflab.benchmark(name="WriteAsync", categories=["file_io"], setup=_setup_async,
                   teardown=_teardown, meta=_meta("WriteAsync", FAITHFUL))
def write_async(fileSize, userBufferSize):
    """Write the whole file, each write awaited through asyncio's default thread-pool executor."""
    _S["loop"].run_until_complete(_write_async(fileSize, userBufferSize, FOUR_KiB))


@perflab.params(fileSize=SIZES, userBufferSize=NOBUFFERING)
@perflab.benchmark(name="WriteAsync_NoBuffering", categories=["file_io"], setup=_setup_async,
                   teardown=_teardown, meta=_meta("WriteAsync", FAITHFUL))
def write_async_nobuffering(fileSize, userBufferSize):
    _S["loop"].run_until_complete(_write_async(fileSize, userBufferSize, 0))


@perflab.params(fileSize=[KiB], userBufferSize=[KiB])  # the seed's one 1 KiB row: one write per call
@perflab.benchmark(name="WriteAsync", categories=["file_io"], setup=_setup_async,
                   teardown=_teardown, meta=_meta("WriteAsync", FAITHFUL))
def write_async_small(fileSize, userBufferSize):
    _S["loop"].run_until_complete(_write_async(fileSize, userBufferSize, FOUR_KiB))


# The seed's 100 MiB rows: 4096-byte user buffer buffered, 16384 unbuffered. Category "large".
LARGE = [100 * MiB]


@perflab.params(fileSize=LARGE, userBufferSize=[4096])
@perflab.benchmark(name="Read", categories=["large"], setup=_setup, teardown=_teardown,
                   meta=RW_META)
def read_large(fileSize, userBufferSize):
    return _read(fileSize, FOUR_KiB)


@perflab.params(fileSize=LARGE, userBufferSize=[16384])
@perflab.benchmark(name="Read_NoBuffering", categories=["large"], setup=_setup,
                   teardown=_teardown, meta=RW_EXTRA)
def read_nobuffering_large(fileSize, userBufferSize):
    return _read(fileSize, 0)


@perflab.params(fileSize=LARGE, userBufferSize=[4096])
@perflab.benchmark(name="Write", categories=["large"], setup=_setup, teardown=_teardown,
                   meta=RW_META)
def write_large(fileSize, userBufferSize):
    _write(fileSize, userBufferSize, FOUR_KiB)


@perflab.params(fileSize=LARGE, userBufferSize=[16384])
@perflab.benchmark(name="Write_NoBuffering", categories=["large"], setup=_setup,
                   teardown=_teardown, meta=RW_EXTRA)
def write_nobuffering_large(fileSize, userBufferSize):
    _write(fileSize, userBufferSize, 0)


@perflab.params(fileSize=LARGE, userBufferSize=[4096])
@perflab.benchmark(name="ReadAsync", categories=["large"], setup=_setup_async,
                   teardown=_teardown, meta=_meta("ReadAsync", FAITHFUL))
def read_async_large(fileSize, userBufferSize):
    return _S["loop"].run_until_complete(_read_async(fileSize, FOUR_KiB))


@perflab.params(fileSize=LARGE, userBufferSize=[16384])
@perflab.benchmark(name="ReadAsync_NoBuffering", categories=["large"],
                   setup=_setup_async, teardown=_teardown, meta=_meta("ReadAsync", FAITHFUL))
def read_async_nobuffering_large(fileSize, userBufferSize):
    return _S["loop"].run_until_complete(_read_async(fileSize, 0))


@perflab.params(fileSize=LARGE, userBufferSize=[4096])
@perflab.benchmark(name="WriteAsync", categories=["large"], setup=_setup_async,
                   teardown=_teardown, meta=_meta("WriteAsync", FAITHFUL))
def write_async_large(fileSize, userBufferSize):
    _S["loop"].run_until_complete(_write_async(fileSize, userBufferSize, FOUR_KiB))


@perflab.params(fileSize=LARGE, userBufferSize=[16384])
@perflab.benchmark(name="WriteAsync_NoBuffering", categories=["large"],
                   setup=_setup_async, teardown=_teardown, meta=_meta("WriteAsync", FAITHFUL))
def write_async_nobuffering_large(fileSize, userBufferSize):
    _S["loop"].run_until_complete(_write_async(fileSize, userBufferSize, 0))


# -- RandomAccess (thread-safe, offset-based) --------------------------------------------------

def _positional(fileSize, userBufferSize, threads, write):
    """`threads` threads each handle an interleaved share of the blocks, all on ONE descriptor,
    with offset-based calls (os.pread/os.pwrite) that never touch the shared file offset."""
    import threading
    flags = (os.O_RDWR | os.O_CREAT) if write else os.O_RDONLY
    fd = os.open(_S["dst"] if write else _S["src"], flags, 0o600)
    blocks = fileSize // userBufferSize
    data = bytes(userBufferSize)

    def work(start):
        if write:
            for b in range(start, blocks, threads):
                os.pwrite(fd, data, b * userBufferSize)
        else:
            for b in range(start, blocks, threads):
                os.pread(fd, userBufferSize, b * userBufferSize)
    try:
        if threads == 1:
            work(0)
        else:
            ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
    finally:
        os.close(fd)


@perflab.params(fileSize=[MiB], userBufferSize=[4096], threads=[1, 4])
@perflab.benchmark(name="RandomAccessRead", categories=["file_io"], setup=_setup,
                   teardown=_teardown, meta=_extra("RandomAccess"))
def random_access_read(fileSize, userBufferSize, threads):
    """Read a 1 MiB file with os.pread at explicit offsets, from 1 or 4 threads sharing one fd."""
    _positional(fileSize, userBufferSize, threads, False)


@perflab.params(fileSize=[MiB], userBufferSize=[4096], threads=[1, 4])
@perflab.benchmark(name="RandomAccessWrite", categories=["file_io"], setup=_setup,
                   teardown=_teardown, meta=_extra("RandomAccess"))
def random_access_write(fileSize, userBufferSize, threads):
    """The seed's ThreadSafeAsync: buffers written at explicit offsets with os.pwrite (1 or 4 threads)."""
    _positional(fileSize, userBufferSize, threads, True)


# -- Scatter/Gather ----------------------------------------------------------------------------

FILE_SIZE = 100000000
SMALL = "partial: 10 MB instead of the seed's 100 MB (same 16000-byte writes; the 100 MB case is in `large`)"
GATHER_BUFFER = 16000


def _open_create():
    return os.open(_S["dst"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)


def _gather(total, buffers):
    if buffers > 1 and not hasattr(os, "pwritev"):
        # PyPy (3.9/3.10) has neither os.pwritev nor os.writev: no gather write to measure.
        raise NotImplementedError("os.pwritev (gather write) is not available on this runtime")
    buf = bytes(GATHER_BUFFER)
    fd = _open_create()
    try:
        written = 0
        if buffers == 1:
            for _ in range(total // GATHER_BUFFER):
                os.pwrite(fd, buf, written)
                written += GATHER_BUFFER
        else:
            bufs = [buf] * buffers
            step = GATHER_BUFFER * buffers
            for _ in range(total // step):
                os.pwritev(fd, bufs, written)
                written += step
    finally:
        os.close(fd)
        os.unlink(_S["dst"])  # FileOptions.DeleteOnClose


@perflab.params(FileSize=[FILE_SIZE])
@perflab.benchmark(name="Write", categories=["large"], setup=_setup, teardown=_teardown,
                   meta=_meta("Scatter/Gather", FAITHFUL))
def gather_write(FileSize):
    """100 MB written with one os.pwrite per 16000-byte buffer."""
    _gather(FileSize, 1)


@perflab.params(FileSize=[FILE_SIZE])
@perflab.benchmark(name="WriteGather", categories=["large"], setup=_setup,
                   teardown=_teardown, meta=_meta("Scatter/Gather", FAITHFUL))
def gather_write_gather(FileSize):
    """100 MB written with one os.pwritev of 4 × 16000-byte buffers per call."""
    _gather(FileSize, 4)


# A 10 MB version of the same pair for quick runs.
@perflab.params(FileSize=[FILE_SIZE // 10])
@perflab.benchmark(name="Write", categories=["file_io", "quick"], setup=_setup, teardown=_teardown,
                   meta=_meta("Scatter/Gather", SMALL))
def gather_write_small(FileSize):
    _gather(FileSize, 1)


@perflab.params(FileSize=[FILE_SIZE // 10])
@perflab.benchmark(name="WriteGather", categories=["file_io", "quick"], setup=_setup,
                   teardown=_teardown, meta=_meta("Scatter/Gather", SMALL))
def gather_write_gather_small(FileSize):
    _gather(FileSize, 4)


# -- Preallocation -----------------------------------------------------------------------------

def _prealloc(total, specify):
    buf = bytes(GATHER_BUFFER)
    fd = _open_create()
    try:
        if specify:
            os.posix_fallocate(fd, 0, total)
        written = 0
        for _ in range(total // GATHER_BUFFER):
            os.pwrite(fd, buf, written)
            written += GATHER_BUFFER
    finally:
        os.close(fd)
        os.unlink(_S["dst"])


@perflab.params(specifyPreallocationSize=[False, True])
@perflab.benchmark(name="PreallocationSize", categories=["large"], setup=_setup,
                   teardown=_teardown, meta=_meta("Preallocation", FAITHFUL))
def preallocation_size(specifyPreallocationSize):
    """Write a 100 MB file with 16000-byte os.pwrite calls, with or without os.posix_fallocate first."""
    _prealloc(FILE_SIZE, specifyPreallocationSize)


@perflab.params(specifyPreallocationSize=[False, True])
@perflab.benchmark(name="PreallocationSize", categories=["file_io", "quick"], setup=_setup,
                   teardown=_teardown, meta=_meta("Preallocation", SMALL, file_size=FILE_SIZE // 10))
def preallocation_size_small(specifyPreallocationSize):
    """The same with a 10 MB file (quick runs)."""
    _prealloc(FILE_SIZE // 10, specifyPreallocationSize)
