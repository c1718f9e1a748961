// The seeds' FileStream in miniature, shared by file_io.bench.mjs (seed 002) and io_000.bench.mjs
// (seed 000): Node has no buffered file stream with a settable buffer size and no lseek, so this
// class keeps the position in memory, makes explicit-offset calls (fs.readSync/fs.writeSync with a
// position: pread/pwrite; FileHandle.read/write for the async forms, on libuv's thread pool) and
// optionally buffers reads/writes in `bufferSize` bytes — what .NET 6's FileStream strategies do.
// Not a benchmark file (no `.bench.` in its name): perflab does not load it on its own.
import fs from 'node:fs';
import fsp from 'node:fs/promises';

const BEGIN = 0;
const END = 2;

/** The seed's FileStream in miniature: position kept in memory, explicit-offset (pread/pwrite-like)
 * calls, an optional read/write buffer of `bufferSize` bytes (0 or 1: none). Reads at least as large
 * as the buffer bypass it, as .NET's BufferedFileStreamStrategy (and CPython's BufferedReader) do. */
export class FileStream {
  static BEGIN = BEGIN;
  static END = END;

  constructor(fd, bufferSize, handle = null) {
    this.fd = fd;
    this.handle = handle;             // a FileHandle for the async forms
    this.bufferSize = bufferSize > 1 ? bufferSize : 0;
    this.buffer = null;
    this.pos = 0;                     // file offset of the next system call
    this.readPos = 0;                 // buffered read data: buffer[readPos, readLen)
    this.readLen = 0;
    this.writeLen = 0;                // buffered write data: buffer[0, writeLen)
  }

  static openSync(file, flags, bufferSize) {
    return new FileStream(fs.openSync(file, flags, 0o600), bufferSize);
  }

  static async open(file, flags, bufferSize) {
    const handle = await fsp.open(file, flags, 0o600);
    return new FileStream(handle.fd, bufferSize, handle);
  }

  get position() { return this.pos - (this.readLen - this.readPos) + this.writeLen; }

  /** Seek(offset, origin): no system call, except that SeekOrigin.End needs the length (fstat). */
  seek(offset, origin = BEGIN) {
    if (this.writeLen) this.flushSync();
    const target = origin === END ? fs.fstatSync(this.fd).size + offset : offset;
    const bufferStart = this.pos - this.readLen;
    if (this.readLen && target >= bufferStart && target <= this.pos) {
      this.readPos = target - bufferStart;   // still inside the buffered data: keep it
    } else {
      this.readPos = this.readLen = 0;
      this.pos = target;
    }
    return target;
  }

  readSync(dst) {
    const want = dst.length;
    if (this.readPos === this.readLen) {
      this.readPos = this.readLen = 0;
      if (!this.bufferSize || want >= this.bufferSize) {
        const n = fs.readSync(this.fd, dst, 0, want, this.pos);
        this.pos += n;
        return n;
      }
      this.buffer ??= Buffer.allocUnsafe(this.bufferSize);
      this.readLen = fs.readSync(this.fd, this.buffer, 0, this.bufferSize, this.pos);
      this.pos += this.readLen;
    }
    return this.copyOut(dst, want);
  }

  async read(dst) {
    const want = dst.length;
    if (this.readPos === this.readLen) {
      this.readPos = this.readLen = 0;
      if (!this.bufferSize || want >= this.bufferSize) {
        const { bytesRead } = await this.handle.read(dst, 0, want, this.pos);
        this.pos += bytesRead;
        return bytesRead;
      }
      this.buffer ??= Buffer.allocUnsafe(this.bufferSize);
      const { bytesRead } = await this.handle.read(this.buffer, 0, this.bufferSize, this.pos);
      this.readLen = bytesRead;
      this.pos += bytesRead;
    }
    return this.copyOut(dst, want);
  }

  copyOut(dst, want) {
    const n = Math.min(want, this.readLen - this.readPos);
    this.buffer.copy(dst, 0, this.readPos, this.readPos + n);
    this.readPos += n;
    return n;
  }

  writeSync(src) {
    const len = src.length;
    if (this.bufferSize) {
      if (this.writeLen + len < this.bufferSize) {
        this.buffer ??= Buffer.allocUnsafe(this.bufferSize);
        src.copy(this.buffer, this.writeLen);
        this.writeLen += len;
        return;
      }
      if (this.writeLen) this.flushSync();
      if (len < this.bufferSize) {
        this.buffer ??= Buffer.allocUnsafe(this.bufferSize);
        src.copy(this.buffer, 0);
        this.writeLen = len;
        return;
      }
    }
    this.pos += writeAllSync(this.fd, src, len, this.pos);
  }

  async write(src) {
    const len = src.length;
    if (this.bufferSize) {
      if (this.writeLen + len < this.bufferSize) {
        this.buffer ??= Buffer.allocUnsafe(this.bufferSize);
        src.copy(this.buffer, this.writeLen);
        this.writeLen += len;
        return;
      }
      if (this.writeLen) await this.flush();
      if (len < this.bufferSize) {
        this.buffer ??= Buffer.allocUnsafe(this.bufferSize);
        src.copy(this.buffer, 0);
        this.writeLen = len;
        return;
      }
    }
    this.pos += await writeAll(this.handle, src, len, this.pos);
  }

  flushSync() {
    if (!this.writeLen) return;
    this.pos += writeAllSync(this.fd, this.buffer, this.writeLen, this.pos);
    this.writeLen = 0;
  }

  async flush() {
    if (!this.writeLen) return;
    this.pos += await writeAll(this.handle, this.buffer, this.writeLen, this.pos);
    this.writeLen = 0;
  }

  closeSync() {
    this.flushSync();
    fs.closeSync(this.fd);
  }

  async close() {
    await this.flush();
    await this.handle.close();
  }
}

export function writeAllSync(fd, buf, len, pos) {
  let done = 0;
  while (done < len) done += fs.writeSync(fd, buf, done, len - done, pos + done);
  return done;
}

export async function writeAll(handle, buf, len, pos) {
  let done = 0;
  while (done < len) done += (await handle.write(buf, done, len - done, pos + done)).bytesWritten;
  return done;
}

