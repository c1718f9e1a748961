import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

import perflab.Benchmark;
import perflab.Meta;
import perflab.OperationsPerInvocation;
import perflab.Param;
import perflab.Setup;
import perflab.TearDown;

/**
 * Seed 002 "File IO improvements in .NET 6", ported to java.io and java.nio.
 *
 * <p>Every benchmark is named after the seed's method and keeps its workload and parameters
 * (the seed's (fileSize, userBufferSize) rows: see ReadWrite). The seed's 4096-byte stream
 * buffer is a {@code BufferedInputStream}/{@code BufferedOutputStream} of 4096 bytes; its
 * {@code *_NoBuffering} (bufferSize 1) is the bare {@code FileInputStream}/{@code FileOutputStream}.
 * The {@code *Async} forms use {@code AsynchronousFileChannel} (on Linux: positional reads/writes on an
 * internal thread pool, what .NET does on Unix), each operation awaited with {@code Future.get()}; Java has
 * no buffered asynchronous stream, so the seed's 4096-byte buffer is the small {@link AsyncReader} /
 * {@link AsyncWriter} layer below. The 100 MiB cases are in category "large" only. Files live in a
 * temporary folder made by each case's setup and removed by its teardown.
 */
public class FileIoBench {
    static final int KiB = 1024;
    static final int MiB = 1024 * 1024;
    static final int FOUR_KiB = 4096;

    /** A temporary folder with source.bin (fileSize bytes) and the path of destination.bin. */
    static final class TempFiles {
        final Path dir, src, dst;

        TempFiles(long fileSize) throws IOException {
            dir = Files.createTempDirectory("perflab-seed002-");
            src = dir.resolve("source.bin");
            dst = dir.resolve("destination.bin");
            byte[] chunk = new byte[MiB];
            for (int i = 0; i < chunk.length; i++) chunk[i] = (byte) i;
            try (OutputStream out = new FileOutputStream(src.toFile())) {
                for (long left = fileSize; left > 0; left -= chunk.length) {
                    out.write(chunk, 0, (int) Math.min(left, chunk.length));
                }
            }
        }

        void delete() throws IOException {
            if (!Files.exists(dir)) return;
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
            }
        }
    }

    // -- Seek/Position -----------------------------------------------------------------------------

    /** Java has no buffered seekable stream: buffering 4096 ↔ NIO FileChannel.position, 0 ↔ RandomAccessFile.seek. */
    @Meta({"seed=002", "section=Seek/Position", "fidelity=faithful"})
    public static class Seek {
        @Param({"1024"}) int fileSize;
        @Param({"4096", "0"}) int buffering;
        TempFiles files;

        @Setup public void setup() throws IOException { files = new TempFiles(fileSize); }
        @TearDown public void teardown() throws IOException { files.delete(); }

        @Benchmark(categories = {"file_io", "quick"},
                description = "Open the 1 KiB file and seek to every offset from the beginning")
        public long SeekForward() throws IOException {
            long pos = 0;
            if (buffering > 0) {
                try (FileChannel ch = FileChannel.open(files.src, StandardOpenOption.READ)) {
                    for (int offset = 0; offset < fileSize; offset++) pos += ch.position(offset).position();
                }
            } else {
                try (RandomAccessFile f = new RandomAccessFile(files.src.toFile(), "r")) {
                    for (int offset = 0; offset < fileSize; offset++) {
                        f.seek(offset);
                        pos += offset;
                    }
                }
            }
            return pos;
        }

        @Benchmark(categories = {"file_io"},
                description = "Seek to every offset counted from the end (Java has no SEEK_END: length read once)")
        public long SeekBackward() throws IOException {
            long pos = 0;
            if (buffering > 0) {
                try (FileChannel ch = FileChannel.open(files.src, StandardOpenOption.READ)) {
                    long end = ch.size();
                    for (int offset = 1; offset <= fileSize; offset++) pos += ch.position(end - offset).position();
                }
            } else {
                try (RandomAccessFile f = new RandomAccessFile(files.src.toFile(), "r")) {
                    long end = f.length();
                    for (int offset = 1; offset <= fileSize; offset++) {
                        f.seek(end - offset);
                        pos += offset;
                    }
                }
            }
            return pos;
        }
    }

    // -- Length ------------------------------------------------------------------------------------

    @Meta({"seed=002", "section=Length"})
    public static class Length {
        @Param({"fstat", "seek_end"}) String how;
        TempFiles files;

        @Setup public void setup() throws IOException { files = new TempFiles(MiB); }
        @TearDown public void teardown() throws IOException { files.delete(); }

        @Benchmark(categories = {"file_io"},
                description = "Open the file, then ask for its length 1024 times: FileChannel.size (fstat) or RandomAccessFile.length")
        @OperationsPerInvocation(KiB)
        @Meta("fidelity=partial: how replaces the seed's FileShare axis (nothing caches the length); both forms are an fstat (FileChannel.size, RandomAccessFile.length)")
        public long GetLength() throws IOException {
            long length = 0;
            if (how.equals("fstat")) {
                try (FileChannel ch = FileChannel.open(files.src, StandardOpenOption.READ)) {
                    for (int i = 0; i < KiB; i++) length += ch.size();
                }
            } else {
                try (RandomAccessFile f = new RandomAccessFile(files.src.toFile(), "r")) {
                    for (int i = 0; i < KiB; i++) length += f.length();
                }
            }
            return length;
        }
    }

    // -- Read & Write, ReadAsync / WriteAsync --------------------------------------------------------

    static long read(TempFiles files, byte[] buf, boolean buffered) throws IOException {
        long read = 0;
        try (InputStream raw = new FileInputStream(files.src.toFile());
             InputStream in = buffered ? new BufferedInputStream(raw, FOUR_KiB) : raw) {
            int n;
            while ((n = in.read(buf)) > 0) read += n;
        }
        return read;
    }

    static void write(TempFiles files, byte[] buf, long fileSize, boolean buffered) throws IOException {
        try (OutputStream raw = new FileOutputStream(files.dst.toFile());
             OutputStream out = buffered ? new BufferedOutputStream(raw, FOUR_KiB) : raw) {
            for (long i = fileSize / buf.length; i > 0; i--) out.write(buf);
        }
    }

    /** .NET's FileStream buffer over an asynchronous handle: reads smaller than the buffer are served from it,
     * larger ones go straight to the channel. bufferSize 0: every read goes to the channel. */
    static final class AsyncReader {
        final AsynchronousFileChannel ch;
        final ByteBuffer buffer;
        long position;

        AsyncReader(AsynchronousFileChannel ch, int bufferSize) {
            this.ch = ch;
            this.buffer = bufferSize > 1 ? ByteBuffer.allocate(bufferSize) : null;
            if (buffer != null) buffer.limit(0);
        }

        int read(byte[] dst) throws IOException, InterruptedException, ExecutionException {
            if (buffer == null || (!buffer.hasRemaining() && dst.length >= buffer.capacity())) {
                int n = ch.read(ByteBuffer.wrap(dst), position).get();
                if (n > 0) position += n;
                return n;
            }
            if (!buffer.hasRemaining()) {
                buffer.clear();
                int n = ch.read(buffer, position).get();
                buffer.flip();
                if (n <= 0) return -1;
                position += n;
            }
            int n = Math.min(dst.length, buffer.remaining());
            buffer.get(dst, 0, n);
            return n;
        }
    }

    /** The writing side: small writes collect in the buffer, a full buffer (or a large write) goes out. */
    static final class AsyncWriter implements AutoCloseable {
        final AsynchronousFileChannel ch;
        final ByteBuffer buffer;
        long position;

        AsyncWriter(AsynchronousFileChannel ch, int bufferSize) {
            this.ch = ch;
            this.buffer = bufferSize > 1 ? ByteBuffer.allocate(bufferSize) : null;
        }

        void write(byte[] src) throws IOException, InterruptedException, ExecutionException {
            if (buffer == null || src.length >= buffer.capacity()) {
                flush();
                writeFully(ByteBuffer.wrap(src));
                return;
            }
            if (src.length > buffer.remaining()) flush();
            buffer.put(src);
        }

        void flush() throws IOException, InterruptedException, ExecutionException {
            if (buffer == null || buffer.position() == 0) return;
            buffer.flip();
            writeFully(buffer);
            buffer.clear();
        }

        void writeFully(ByteBuffer b) throws IOException, InterruptedException, ExecutionException {
            while (b.hasRemaining()) position += ch.write(b, position).get();
        }

        @Override public void close() throws IOException, InterruptedException, ExecutionException { flush(); }
    }

    static long readAsync(TempFiles files, byte[] buf, int bufferSize) throws Exception {
        long read = 0;
        try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(files.src, StandardOpenOption.READ)) {
            AsyncReader r = new AsyncReader(ch, bufferSize);
            int n;
            while ((n = r.read(buf)) > 0) read += n;
        }
        return read;
    }

    static void writeAsync(TempFiles files, byte[] buf, long fileSize, int bufferSize) throws Exception {
        try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(files.dst, StandardOpenOption.WRITE,
                StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
             AsyncWriter w = new AsyncWriter(ch, bufferSize)) {
            for (long i = fileSize / buf.length; i > 0; i--) w.write(buf);
        }
    }

    /** State shared by the Read/Write classes: the files and the user buffer. */
    abstract static class ReadWriteBase {
        TempFiles files;
        byte[] buf;

        abstract long size();
        abstract int userBuffer();

        @Setup public void setup() throws IOException {
            files = new TempFiles(size());
            buf = new byte[userBuffer()];
        }

        @TearDown public void teardown() throws IOException { files.delete(); }
    }

    /** The seed's rows (its result tables; it does not show SyncArguments/AsyncArguments): 1 MiB with a 512-
     *  or 4096-byte user buffer, 16384 for the unbuffered async forms, and for WriteAsync also 1 KiB × 1 KiB. */
    public static class ReadWrite extends ReadWriteBase {
        @Param({"1048576"}) int fileSize;
        @Param({"512", "4096"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"file_io"}, description = "Read the whole file with a user buffer through a 4 KiB BufferedInputStream")
        @Meta({"seed=002", "section=Read & Write", "fidelity=faithful"})
        public long Read() throws IOException { return read(files, buf, true); }

        // The seed has _NoBuffering forms of ReadAsync/WriteAsync only: the two sync ones are extras.
        @Benchmark(categories = {"file_io"}, description = "As Read, on the bare FileInputStream (one read(2) per user buffer)")
        @Meta({"extra=true", "related=002 · Read & Write"})
        public long Read_NoBuffering() throws IOException { return read(files, buf, false); }

        @Benchmark(categories = {"file_io"}, description = "Create the file and write fileSize/userBufferSize buffers through a 4 KiB BufferedOutputStream")
        @Meta({"seed=002", "section=Read & Write", "fidelity=faithful"})
        public void Write() throws IOException { write(files, buf, fileSize, true); }

        @Benchmark(categories = {"file_io"}, description = "As Write, on the bare FileOutputStream (one write(2) per user buffer)")
        @Meta({"extra=true", "related=002 · Read & Write"})
        public void Write_NoBuffering() throws IOException { write(files, buf, fileSize, false); }
    }

    @Meta({"seed=002", "section=ReadAsync"})
    public static class ReadAsync extends ReadWriteBase {
        @Param({"1048576"}) int fileSize;
        @Param({"512", "4096"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"file_io"}, description = "AsynchronousFileChannel reads awaited one by one, through a 4 KiB buffer")
        @Meta("fidelity=partial: the 4096-byte buffer over AsynchronousFileChannel is the port's own (the JDK has no buffered async stream); user buffers of 4096 and more bypass it")
        public long ReadAsync() throws Exception { return readAsync(files, buf, FOUR_KiB); }
    }

    @Meta({"seed=002", "section=ReadAsync"})
    public static class ReadAsyncNoBuffering extends ReadWriteBase {
        @Param({"1048576"}) int fileSize;
        @Param({"16384"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"file_io"}, description = "As ReadAsync, one channel read per user buffer")
        @Meta("fidelity=faithful")
        public long ReadAsync_NoBuffering() throws Exception { return readAsync(files, buf, 0); }
    }

    @Meta({"seed=002", "section=WriteAsync"})
    public static class WriteAsync extends ReadWriteBase {
        @Param({"1048576"}) int fileSize;
        @Param({"512", "4096"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"file_io"}, description = "AsynchronousFileChannel writes awaited one by one, through a 4 KiB buffer")
        @Meta("fidelity=partial: the 4096-byte buffer over AsynchronousFileChannel is the port's own (the JDK has no buffered async stream); user buffers of 4096 and more bypass it")
        public void WriteAsync() throws Exception { writeAsync(files, buf, fileSize, FOUR_KiB); }
    }

    /** The seed's one 1 KiB row: a single 1 KiB write per call. */
    @Meta({"seed=002", "section=WriteAsync"})
    public static class WriteAsyncSmall extends ReadWriteBase {
        @Param({"1024"}) int fileSize;
        @Param({"1024"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"file_io"}, description = "One 1 KiB AsynchronousFileChannel write through a 4 KiB buffer")
        @Meta("fidelity=partial: the 4096-byte buffer over AsynchronousFileChannel is the port's own (the JDK has no buffered async stream)")
        public void WriteAsync() throws Exception { writeAsync(files, buf, fileSize, FOUR_KiB); }
    }

    @Meta({"seed=002", "section=WriteAsync"})
    public static class WriteAsyncNoBuffering extends ReadWriteBase {
        @Param({"1048576"}) int fileSize;
        @Param({"16384"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"file_io"}, description = "As WriteAsync, one channel write per user buffer")
        @Meta("fidelity=faithful")
        public void WriteAsync_NoBuffering() throws Exception { writeAsync(files, buf, fileSize, 0); }
    }

    // The seed's 100 MiB rows: a 4096-byte user buffer buffered, 16384 unbuffered. Category "large" only.

    @Meta({"seed=002", "section=Read & Write", "fidelity=faithful"})
    public static class ReadWriteLarge extends ReadWriteBase {
        @Param({"104857600"}) int fileSize;
        @Param({"4096"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"large"}) public long Read() throws IOException { return read(files, buf, true); }
        @Benchmark(categories = {"large"}) public void Write() throws IOException { write(files, buf, fileSize, true); }
    }

    @Meta({"extra=true", "related=002 · Read & Write"})
    public static class ReadWriteLargeNoBuffering extends ReadWriteBase {
        @Param({"104857600"}) int fileSize;
        @Param({"16384"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"large"}) public long Read_NoBuffering() throws IOException { return read(files, buf, false); }
        @Benchmark(categories = {"large"}) public void Write_NoBuffering() throws IOException { write(files, buf, fileSize, false); }
    }

    public static class AsyncLarge extends ReadWriteBase {
        @Param({"104857600"}) int fileSize;
        @Param({"4096"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"large"}) @Meta({"seed=002", "section=ReadAsync", "fidelity=partial: the 4096-byte buffer over AsynchronousFileChannel is the port's own (the JDK has no buffered async stream); user buffers of 4096 and more bypass it"})
        public long ReadAsync() throws Exception { return readAsync(files, buf, FOUR_KiB); }

        @Benchmark(categories = {"large"}) @Meta({"seed=002", "section=WriteAsync", "fidelity=partial: the 4096-byte buffer over AsynchronousFileChannel is the port's own (the JDK has no buffered async stream); user buffers of 4096 and more bypass it"})
        public void WriteAsync() throws Exception { writeAsync(files, buf, fileSize, FOUR_KiB); }
    }

    public static class AsyncLargeNoBuffering extends ReadWriteBase {
        @Param({"104857600"}) int fileSize;
        @Param({"16384"}) int userBufferSize;

        long size() { return fileSize; }
        int userBuffer() { return userBufferSize; }

        @Benchmark(categories = {"large"}) @Meta({"seed=002", "section=ReadAsync", "fidelity=faithful"})
        public long ReadAsync_NoBuffering() throws Exception { return readAsync(files, buf, 0); }

        @Benchmark(categories = {"large"}) @Meta({"seed=002", "section=WriteAsync", "fidelity=faithful"})
        public void WriteAsync_NoBuffering() throws Exception { writeAsync(files, buf, fileSize, 0); }
    }

    // -- RandomAccess (thread-safe, offset-based) --------------------------------------------------

    /** `threads` threads each handle an interleaved share of the blocks on ONE FileChannel, with positional
     * reads/writes (pread/pwrite) that never touch the channel's position. */
    @Meta({"extra=true", "related=002 · RandomAccess"})   // the seed shows the API, no benchmark
    public static class RandomAccess {
        @Param({"1048576"}) int fileSize;
        @Param({"4096"}) int userBufferSize;
        @Param({"1", "4"}) int threads;
        TempFiles files;
        ByteBuffer[] buffers;

        @Setup public void setup() throws IOException {
            files = new TempFiles(fileSize);
            buffers = new ByteBuffer[threads];
            for (int i = 0; i < threads; i++) buffers[i] = ByteBuffer.allocateDirect(userBufferSize);
        }

        @TearDown public void teardown() throws IOException { files.delete(); }

        void positional(boolean write) throws Exception {
            try (FileChannel ch = write
                    ? FileChannel.open(files.dst, StandardOpenOption.WRITE, StandardOpenOption.CREATE)
                    : FileChannel.open(files.src, StandardOpenOption.READ)) {
                int blocks = fileSize / userBufferSize;
                if (threads == 1) {
                    work(ch, write, 0, blocks);
                    return;
                }
                Thread[] ts = new Thread[threads];
                Exception[] failure = new Exception[1];
                for (int t = 0; t < threads; t++) {
                    final int start = t;
                    ts[t] = new Thread(() -> {
                        try {
                            work(ch, write, start, blocks);
                        } catch (Exception e) {
                            synchronized (failure) { failure[0] = e; }
                        }
                    });
                    ts[t].start();
                }
                for (Thread t : ts) t.join();
                if (failure[0] != null) throw failure[0];
            }
        }

        void work(FileChannel ch, boolean write, int start, int blocks) throws IOException {
            ByteBuffer b = buffers[start];
            for (int block = start; block < blocks; block += threads) {
                b.clear();
                long offset = (long) block * userBufferSize;
                while (b.hasRemaining()) {
                    int n = write ? ch.write(b, offset + b.position()) : ch.read(b, offset + b.position());
                    if (n < 0) return;
                }
            }
        }

        @Benchmark(categories = {"file_io"}, description = "Read a 1 MiB file with FileChannel.read(buffer, position) from 1 or 4 threads sharing one channel")
        public void RandomAccessRead() throws Exception { positional(false); }

        @Benchmark(categories = {"file_io"}, description = "Write it with FileChannel.write(buffer, position) from 1 or 4 threads sharing one channel")
        public void RandomAccessWrite() throws Exception { positional(true); }
    }

    // -- Scatter/Gather ----------------------------------------------------------------------------

    static final int GATHER_BUFFER = 16000;

    /** FileSize bytes in 16000-byte writes: one write(2) per buffer, or a gathering write of 4 buffers
     * (FileChannel.write(ByteBuffer[]) → writev(2)); the file is opened with DELETE_ON_CLOSE like the seed's
     * FileOptions.DeleteOnClose. */
    abstract static class GatherBase {
        TempFiles files;
        ByteBuffer[] four;

        abstract long total();

        @Setup public void setup() throws IOException {
            files = new TempFiles(0);
            ByteBuffer buf = ByteBuffer.allocateDirect(GATHER_BUFFER);
            four = new ByteBuffer[]{buf.duplicate(), buf.duplicate(), buf.duplicate(), buf.duplicate()};
        }

        @TearDown public void teardown() throws IOException { files.delete(); }

        void gather(int buffers) throws IOException {
            long total = total();
            try (FileChannel ch = FileChannel.open(files.dst, StandardOpenOption.WRITE, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.DELETE_ON_CLOSE)) {
                if (buffers == 1) {
                    ByteBuffer b = four[0];
                    for (long i = total / GATHER_BUFFER; i > 0; i--) {
                        b.clear();
                        while (b.hasRemaining()) ch.write(b);
                    }
                } else {
                    long step = (long) GATHER_BUFFER * buffers;
                    for (long i = total / step; i > 0; i--) {
                        for (ByteBuffer b : four) b.clear();
                        long left = step;
                        while (left > 0) left -= ch.write(four);
                    }
                }
            }
        }
    }

    @Meta({"seed=002", "section=Scatter/Gather",
           "fidelity=partial: 10 MB instead of the seed's 100 MB (same 16000-byte writes; the 100 MB pair is in `large`)"})
    public static class ScatterGather extends GatherBase {
        @Param({"10000000"}) int FileSize;

        long total() { return FileSize; }

        @Benchmark(categories = {"file_io", "quick"}, description = "10 MB with one FileChannel.write per 16000-byte buffer")
        public void Write() throws IOException { gather(1); }

        @Benchmark(categories = {"file_io", "quick"}, description = "10 MB with one gathering FileChannel.write of 4 × 16000-byte buffers per call")
        public void WriteGather() throws IOException { gather(4); }
    }

    @Meta({"seed=002", "section=Scatter/Gather", "fidelity=faithful"})
    public static class ScatterGatherLarge extends GatherBase {
        @Param({"100000000"}) int FileSize;

        long total() { return FileSize; }

        @Benchmark(categories = {"large"}, description = "100 MB with one FileChannel.write per 16000-byte buffer")
        public void Write() throws IOException { gather(1); }

        @Benchmark(categories = {"large"}, description = "100 MB with one gathering FileChannel.write of 4 × 16000-byte buffers per call")
        public void WriteGather() throws IOException { gather(4); }
    }
}
