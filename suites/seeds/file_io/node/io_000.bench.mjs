// Seed 000 (".NET 6": IO), ported to Node's fs and zlib: reading a 10 MB file with a 1 KiB user
// buffer through a stream buffer of 1 (none) or 4096 bytes, synchronously (fs.readSync) and
// asynchronously (FileHandle.read, on libuv's thread pool; the seed's IsAsync axis has no Node
// counterpart: the async form is ReadAsync); File.WriteAllText(Async) of 100 000 characters ↔
// fs.writeFileSync / fsp.writeFile; and stream compression with Brotli at quality 1
// (BrotliStream with CompressionLevel.Fastest — Node's zlib has Brotli) on 152 089 bytes of
// generated English text instead of the seed's downloaded alice29.txt.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { bench, group } from 'perflab';
import { FileStream } from './filestream.mjs';

const META = { seed: '000', section: 'IO' };
const OWN_BUFFER = { ...META, fidelity: "partial: the 4096-byte stream buffer is the port's own class "
  + '(filestream.mjs; Node has no buffered file stream)' };

// A small seeded generator (mulberry32): deterministic data without the seed's System.Random.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'perflab-seed000-io-node-'));

// The stream is opened once per case (GlobalSetup); each call rewinds and reads to the end.
group('FileStreamRead', {
  params: { BufferSize: [1, 4096] },
  setup: async ({ BufferSize }) => {
    const dir = tempDir();
    const file = path.join(dir, 'data.bin');
    const data = Buffer.allocUnsafe(10000000);        // new Random(42).NextBytes(10 000 000 bytes)
    const next = rng(42);
    for (let i = 0; i < data.length; i++) data[i] = (next() * 256) | 0;
    fs.writeFileSync(file, data);
    // BufferSize 1 ↔ no buffer (FileStream disables its buffer for sizes 0 and 1)
    const stream = await FileStream.open(file, 'r', BufferSize);
    return { dir, stream, buf: Buffer.alloc(1024) };
  },
  teardown: async ({ dir, stream }) => {
    await stream.close();
    fs.rmSync(dir, { recursive: true, force: true });
  },
}, () => {
  bench('Read', ({ stream, buf }) => {
    stream.seek(0);
    let total = 0;
    for (let n; (n = stream.readSync(buf)) > 0;) total += n;
    return total;
  }, { categories: ['file_io'], meta: OWN_BUFFER });

  bench('ReadAsync', async ({ stream, buf }) => {
    stream.seek(0);
    let total = 0;
    for (let n; (n = await stream.read(buf)) > 0;) total += n;
    return total;
  }, { categories: ['file_io'], meta: OWN_BUFFER });
});

const CONTENTS = Array.from({ length: 100000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');

group('WriteAllText', {
  setup: () => {
    const dir = tempDir();
    return { dir, file: path.join(dir, 'text.txt') };
  },
  teardown: ({ dir }) => fs.rmSync(dir, { recursive: true, force: true }),
}, () => {
  // Open, write 100 000 characters as UTF-8, close.
  bench('WriteAllTextAsync', ({ file }) => fsp.writeFile(file, CONTENTS, 'utf8'),
    { categories: ['file_io'], meta: { ...META, fidelity: 'faithful' } });
  // Not a method of the seed (which times WriteAllTextAsync only): an extra.
  bench('WriteAllText', ({ file }) => fs.writeFileSync(file, CONTENTS, 'utf8'),
    { categories: ['file_io'], meta: { extra: true, related: '000 · IO' } });
});

function text(n) {
  const next = rng(29);
  const words = ('alice was beginning to get very tired of sitting by her sister on the bank and of '
    + 'having nothing to do once or twice she had peeped into the book her sister was '
    + 'reading but it had no pictures or conversations in it').split(' ');
  const out = [];
  for (let size = 0; size < n;) {
    const w = words[Math.floor(next() * words.length)];
    out.push(w);
    size += w.length + 1;
  }
  return Buffer.from(out.join(' ')).subarray(0, n);
}

// 152 089 bytes of text (the size of alice29.txt) through Brotli at quality 1 (Fastest), one shot.
group('Compression', { setup: () => ({ data: text(152089) }) }, () => {
  bench('Compress', ({ data }) => zlib.brotliCompressSync(data, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  }).length, { categories: ['file_io', 'quick'], meta: { ...META,
    fidelity: 'partial: one-shot brotliCompressSync on generated text of alice29.txt\'s size (no download)' } });
});
