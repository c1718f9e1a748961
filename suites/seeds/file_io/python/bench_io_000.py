"""Seed 000 (".NET 6": IO), ported to Python's standard library: reading a 10 MB file with a 1 KiB
user buffer through a stream buffer of 1 (none) or 4096 bytes, synchronously and through asyncio
(the seed's IsAsync axis has no Python counterpart: the async form is ReadAsync), File.WriteAllTextAsync
of 100 000 characters, and stream compression (Brotli is not in the standard library: zlib's deflate
at level 1, CompressionLevel.Fastest, on generated English text instead of the seed's downloaded
alice29.txt)."""
import asyncio
import os
import random
import shutil
import tempfile
import zlib

import perflab

META = {"seed": "000", "section": "IO", "fidelity": "faithful"}
COMPRESS_META = {"seed": "000", "section": "IO",
                 "fidelity": "different: zlib deflate level 1 instead of Brotli (no Brotli in the stdlib), "
                             "on generated text instead of alice29.txt"}
READ_ASYNC_META = {"seed": "000", "section": "IO",
                   "fidelity": "partial: no async file API; every 1 KiB read goes through the executor, "
                               "where .NET serves 3 in 4 from its 4 KiB buffer without a thread hop"}
# File.WriteAllText (sync) is not a method of the seed: an extra beside WriteAllTextAsync.
EXTRA = {"extra": True, "related": "000 · IO"}
_S = {}


def _setup_file():
    d = tempfile.mkdtemp(prefix="perflab-seed000-io-")
    path = os.path.join(d, "data.bin")
    rnd = random.Random(42)
    with open(path, "wb") as f:
        f.write(rnd.getrandbits(8 * 10000000).to_bytes(10000000, "little"))  # new Random(42).NextBytes
    _S.update(dir=d, path=path, buf=bytearray(1024), loop=asyncio.new_event_loop())


def _teardown_file():
    loop = _S.pop("loop", None)
    if loop is not None:
        loop.close()
    shutil.rmtree(_S.pop("dir", ""), ignore_errors=True)


class FileStreamRead:
    """The stream is opened once per case (GlobalSetup); each call rewinds and reads to the end."""

    params = {"BufferSize": [1, 4096]}

    def setup(self):
        _setup_file()
        # BufferSize 1 ↔ buffering=0 (FileStream disables its buffer for sizes 0 and 1)
        self.f = open(_S["path"], "rb", buffering=0 if self.BufferSize == 1 else self.BufferSize)

    def teardown(self):
        self.f.close()
        _teardown_file()

    @perflab.benchmark(name="Read", categories=["file_io"], meta=META)
    def read(self):
        f, buf = self.f, _S["buf"]
        f.seek(0)
        readinto = f.readinto
        while readinto(buf):
            pass

    @perflab.benchmark(name="ReadAsync", categories=["file_io"], meta=READ_ASYNC_META)
    def read_async(self):
        f, buf, loop = self.f, _S["buf"], _S["loop"]

        async def run():
            f.seek(0)
            while await loop.run_in_executor(None, f.readinto, buf):
                pass
        loop.run_until_complete(run())


CONTENTS = "".join(chr(ord("a") + i % 26) for i in range(100000))


class WriteAllText:
    def setup(self):
        self.dir = tempfile.mkdtemp(prefix="perflab-seed000-io-")
        self.path = os.path.join(self.dir, "text.txt")
        self.loop = asyncio.new_event_loop()

    def teardown(self):
        self.loop.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _write(self):
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(CONTENTS)

    @perflab.benchmark(name="WriteAllTextAsync", categories=["file_io"], meta=META)
    def write_all_text_async(self):
        """Open, write 100 000 characters as UTF-8, close — on the default executor via asyncio."""
        self.loop.run_until_complete(self.loop.run_in_executor(None, self._write))

    @perflab.benchmark(name="WriteAllText", categories=["file_io"], meta=EXTRA)
    def write_all_text(self):
        self._write()


def _text(n):
    rnd = random.Random(29)
    words = ("alice was beginning to get very tired of sitting by her sister on the bank and of "
             "having nothing to do once or twice she had peeped into the book her sister was "
             "reading but it had no pictures or conversations in it").split()
    out, size = [], 0
    while size < n:
        w = rnd.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out).encode()[:n]


class Compression:
    """152 089 bytes of text (the size of alice29.txt) compressed by a deflate stream at level 1."""

    def setup(self):
        self.data = _text(152089)

    @perflab.benchmark(name="Compress", categories=["file_io"], meta=COMPRESS_META)
    def compress(self):
        c = zlib.compressobj(1)
        return len(c.compress(self.data)) + len(c.flush())
