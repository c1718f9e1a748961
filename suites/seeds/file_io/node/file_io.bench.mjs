// Seed 002 "File IO improvements in .NET 6", ported to Node's fs (node:fs, node:fs/promises).
//
// Every benchmark is named after the seed's method and keeps its workload and parameters:
// the seed's (fileSize, userBufferSize) rows (below). Node has no buffered file
// stream with a settable buffer and no lseek: reads and writes take an explicit position (as .NET 6's
// FileStream itself does since the seed's change). So the seed's FileStream is ported as a small
// class (./filestream.mjs) that keeps the position in memory and optionally a 4 KiB buffer over
// fs.readSync/fs.writeSync (sync forms) or FileHandle.read/write (async forms, which run on libuv's
// thread pool — what .NET does on Unix: a blocking call on a pool thread). The seed's
// `*_NoBuffering` (bufferSize 1) is that class without a buffer: one system call per user buffer.
// The 100 MiB cases are in category "large" only (groups `large` and `gather_large`).
// Files live in a temporary folder made by each case's setup and removed by its teardown.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bench, group } from 'perflab';
import { FileStream, writeAllSync } from './filestream.mjs';

const KiB = 1024;
const MiB = 1024 * 1024;
const FOUR_KiB = 4096;
const SEED = '002';
const meta = (section, extra = {}) => ({ seed: SEED, section, ...extra });
// Not a method of the seed: no seed tags, so no claim of the seed is checked on it.
const extra = (section) => ({ extra: true, related: `${SEED} · ${section}` });
const OWN_BUFFER = "partial: the 4096-byte stream buffer is the port's own class (filestream.mjs; "
  + 'Node has no buffered file stream); user buffers of 4096 and more bypass it';

const { BEGIN, END } = FileStream;

// -- setup / teardown ----------------------------------------------------------------------------

function setup(values) {
  const { fileSize = MiB, userBufferSize = FOUR_KiB } = values;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perflab-seed002-node-'));
  const src = path.join(dir, 'source.bin');
  const chunk = Buffer.alloc(MiB);
  for (let i = 0; i < MiB; i++) chunk[i] = i & 0xFF;
  const fd = fs.openSync(src, 'w', 0o600);
  try {
    for (let left = fileSize; left > 0; left -= chunk.length) {
      writeAllSync(fd, chunk, Math.min(left, chunk.length), fileSize - left);
    }
  } finally {
    fs.closeSync(fd);
  }
  return { ...values, dir, src, dst: path.join(dir, 'destination.bin'), buf: Buffer.alloc(userBufferSize) };
}

function teardown(state) {
  fs.rmSync(state.dir, { recursive: true, force: true });
}

const cases = (extra) => ({ setup, teardown, ...extra });

// -- Seek/Position -------------------------------------------------------------------------------
// Node has no lseek: like .NET 6, the position lives in memory, so a forward seek is no system call
// (the call is open + 1024 in-memory seeks + close); SeekOrigin.End asks fstat for the length.

bench('SeekForward', ({ src, fileSize, buffering }) => {
  const f = FileStream.openSync(src, 'r', buffering);
  try {
    for (let offset = 0; offset < fileSize; offset++) f.seek(offset, BEGIN);
    return f.position;
  } finally {
    f.closeSync();
  }
}, cases({ params: { fileSize: [KiB], buffering: [FOUR_KiB, 0] }, categories: ['file_io', 'quick'],
  meta: meta('Seek/Position', { fidelity: 'different: Node has no seek; the call is open + close + '
    + "1024 writes of the port's in-memory position (no FileStream.Seek of the platform)" }) }));

bench('SeekBackward', ({ src, fileSize, buffering }) => {
  const f = FileStream.openSync(src, 'r', buffering);
  try {
    for (let offset = -1; offset >= -fileSize; offset--) f.seek(offset, END);
    return f.position;
  } finally {
    f.closeSync();
  }
}, cases({ params: { fileSize: [KiB], buffering: [FOUR_KiB, 0] }, categories: ['file_io'],
  meta: meta('Seek/Position', { fidelity: "different: Node has no seek; the port's in-memory position "
    + 'plus an fstat per SeekOrigin.End' }) }));

// -- Length --------------------------------------------------------------------------------------

bench('GetLength', ({ src }) => {
  // Open the file, then ask for its length 1024 times (ops = 1024). Node has no lseek, so the
  // Python port's `seek_end` form has no counterpart here; fstat is what every length query does.
  const fd = fs.openSync(src, 'r');
  try {
    let length = 0;
    for (let i = 0; i < KiB; i++) length = fs.fstatSync(fd).size;
    return length;
  } finally {
    fs.closeSync(fd);
  }
}, cases({ params: { how: ['fstat'] }, ops: KiB, categories: ['file_io'], meta: meta('Length', {
  fidelity: "partial: how=fstat replaces the seed's FileShare axis (nothing caches the length); each query builds an fs.Stats",
}) }));

// -- Read & Write, sync and async ----------------------------------------------------------------

function readSync(s, bufferSize) {
  const f = FileStream.openSync(s.src, 'r', bufferSize);
  try {
    let total = 0;
    while (total < s.fileSize) {
      const n = f.readSync(s.buf);
      if (!n) break;
      total += n;
    }
    return total;
  } finally {
    f.closeSync();
  }
}

function writeSync(s, bufferSize) {
  const f = FileStream.openSync(s.dst, 'w', bufferSize);
  try {
    for (let i = Math.floor(s.fileSize / s.userBufferSize); i > 0; i--) f.writeSync(s.buf);
  } finally {
    f.closeSync();
  }
}

async function readAsync(s, bufferSize) {
  const f = await FileStream.open(s.src, 'r', bufferSize);
  try {
    let total = 0;
    while (total < s.fileSize) {
      const n = await f.read(s.buf);
      if (!n) break;
      total += n;
    }
    return total;
  } finally {
    await f.close();
  }
}

async function writeAsync(s, bufferSize) {
  const f = await FileStream.open(s.dst, 'w', bufferSize);
  try {
    for (let i = Math.floor(s.fileSize / s.userBufferSize); i > 0; i--) await f.write(s.buf);
  } finally {
    await f.close();
  }
}

// The seed's rows (its result tables; it does not show SyncArguments/AsyncArguments): 1 MiB with a
// 512- or 4096-byte user buffer, 16384 for the unbuffered forms, WriteAsync also 1 KiB × 1 KiB; the
// 100 MiB rows are in "large" below.
const SIZES = [MiB];
const BUFFERS = [512, 4096];
const NOBUFFERING = [16384];

function readWrite(sizes, categories, [bufferedSize, unbufferedSize]) {
  const p = (userBufferSize) => ({ fileSize: sizes, userBufferSize });
  // Read/Write: through the 4 KiB buffer; *_NoBuffering: one system call per user buffer.
  bench('Read', (s) => readSync(s, FOUR_KiB),
    cases({ params: p(bufferedSize), categories, meta: meta('Read & Write', { fidelity: OWN_BUFFER }) }));
  // The seed has _NoBuffering forms of ReadAsync/WriteAsync only: these two are extras.
  bench('Read_NoBuffering', (s) => readSync(s, 0),
    cases({ params: p(unbufferedSize), categories, meta: extra('Read & Write') }));
  bench('Write', (s) => writeSync(s, FOUR_KiB),
    cases({ params: p(bufferedSize), categories, meta: meta('Read & Write', { fidelity: OWN_BUFFER }) }));
  bench('Write_NoBuffering', (s) => writeSync(s, 0),
    cases({ params: p(unbufferedSize), categories, meta: extra('Read & Write') }));
  // ReadAsync/WriteAsync: every read/write awaited through FileHandle (libuv's thread pool).
  bench('ReadAsync', (s) => readAsync(s, FOUR_KiB),
    cases({ params: p(bufferedSize), categories, meta: meta('ReadAsync', { fidelity: OWN_BUFFER }) }));
  bench('ReadAsync_NoBuffering', (s) => readAsync(s, 0),
    cases({ params: p(unbufferedSize), categories, meta: meta('ReadAsync', { fidelity: 'faithful' }) }));
  bench('WriteAsync', (s) => writeAsync(s, FOUR_KiB),
    cases({ params: p(bufferedSize), categories, meta: meta('WriteAsync', { fidelity: OWN_BUFFER }) }));
  bench('WriteAsync_NoBuffering', (s) => writeAsync(s, 0),
    cases({ params: p(unbufferedSize), categories, meta: meta('WriteAsync', { fidelity: 'faithful' }) }));
}

readWrite(SIZES, ['file_io'], [BUFFERS, NOBUFFERING]);
group('small', () => bench('WriteAsync', (s) => writeAsync(s, FOUR_KiB),
  cases({ params: { fileSize: [KiB], userBufferSize: [KiB] }, categories: ['file_io'],
    meta: meta('WriteAsync', { fidelity: OWN_BUFFER }) })));

// The seed's 100 MiB rows: 4096-byte user buffer buffered, 16384 unbuffered. Category "large" only.
group('large', () => readWrite([100 * MiB], ['large'], [[4096], [16384]]));

// -- RandomAccess (thread-safe, offset-based) ----------------------------------------------------
// `threads` concurrent chains of positional FileHandle reads/writes on ONE file handle, each
// handling an interleaved share of the blocks; libuv's thread pool (4 threads) runs the calls, so
// threads = 4 is four system calls in flight at once. (threads = 1 is one such chain.)

async function positional({ src, dst, fileSize, userBufferSize, threads, blocksOf }, write) {
  const handle = await fsp.open(write ? dst : src, write ? fs.constants.O_RDWR | fs.constants.O_CREAT : 'r', 0o600);
  const blocks = Math.floor(fileSize / userBufferSize);
  const work = async (start) => {
    const b = blocksOf[start];
    for (let i = start; i < blocks; i += threads) {
      if (write) await handle.write(b, 0, userBufferSize, i * userBufferSize);
      else await handle.read(b, 0, userBufferSize, i * userBufferSize);
    }
  };
  try {
    const chains = [];
    for (let t = 0; t < threads; t++) chains.push(work(t));
    await Promise.all(chains);
  } finally {
    await handle.close();
  }
}

const setupPositional = (values) => {
  const s = setup(values);
  s.blocksOf = Array.from({ length: values.threads }, () => Buffer.alloc(values.userBufferSize));
  return s;
};

bench('RandomAccessRead', (s) => positional(s, false), {
  setup: setupPositional, teardown,
  params: { fileSize: [MiB], userBufferSize: [4096], threads: [1, 4] },
  categories: ['file_io'], meta: extra('RandomAccess'),
});

bench('RandomAccessWrite', (s) => positional(s, true), {
  setup: setupPositional, teardown,
  params: { fileSize: [MiB], userBufferSize: [4096], threads: [1, 4] },
  categories: ['file_io'], meta: extra('RandomAccess'),
});

// -- Scatter/Gather ------------------------------------------------------------------------------
// Write: one fs.writeSync per 16000-byte buffer at an explicit offset; WriteGather: one
// fs.writevSync (pwritev) of 4 × 16000-byte buffers per call. The file is deleted after closing
// (FileOptions.DeleteOnClose). 100 MB in "large"; a 10 MB version of the pair for quick runs.

const FILE_SIZE = 100000000;
const GATHER_BUFFER = 16000;

function gather({ dst, FileSize, gatherBuffer }, buffers) {
  const fd = fs.openSync(dst, 'w', 0o600);
  try {
    let written = 0;
    if (buffers === 1) {
      for (let i = Math.floor(FileSize / GATHER_BUFFER); i > 0; i--) {
        written += fs.writeSync(fd, gatherBuffer, 0, GATHER_BUFFER, written);
      }
    } else {
      const bufs = new Array(buffers).fill(gatherBuffer);
      for (let i = Math.floor(FileSize / (GATHER_BUFFER * buffers)); i > 0; i--) {
        written += fs.writevSync(fd, bufs, written);
      }
    }
    return written;
  } finally {
    fs.closeSync(fd);
    fs.unlinkSync(dst);
  }
}

const setupGather = (values) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perflab-seed002-node-'));
  return { ...values, dir, dst: path.join(dir, 'destination.bin'), gatherBuffer: Buffer.alloc(GATHER_BUFFER) };
};

function gatherPair(size, categories, fidelity) {
  bench('Write', (s) => gather(s, 1), { setup: setupGather, teardown, params: { FileSize: [size] },
    categories, meta: meta('Scatter/Gather', { fidelity }) });
  bench('WriteGather', (s) => gather(s, 4), { setup: setupGather, teardown, params: { FileSize: [size] },
    categories, meta: meta('Scatter/Gather', { fidelity }) });
}

group('gather_large', () => gatherPair(FILE_SIZE, ['large'], 'faithful'));
group('gather', () => gatherPair(FILE_SIZE / 10, ['file_io', 'quick'],
  "partial: 10 MB instead of the seed's 100 MB (same 16000-byte writes; the 100 MB pair is in `large`)"));

// -- Preallocation: not ported. Node's fs has no fallocate/posix_fallocate (ftruncate only sets a
// sparse length, which is another workload), so PreallocationSize has nothing to call.
