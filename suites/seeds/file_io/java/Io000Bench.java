import java.io.BufferedInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.zip.Deflater;

import perflab.Benchmark;
import perflab.Meta;
import perflab.Param;
import perflab.Setup;
import perflab.TearDown;

/**
 * Seed 000 (".NET 6": IO), ported to java.io, java.nio and java.util.zip: reading a 10 MB file with a
 * 1 KiB user buffer through a stream buffer of 1 (none) or 4096 bytes, synchronously and through
 * AsynchronousFileChannel (the seed's IsAsync axis has no Java counterpart: the async form is ReadAsync),
 * File.WriteAllText(Async) of 100 000 characters, and stream compression (Brotli is not in Java's
 * standard library: java.util.zip's Deflater at level 1, CompressionLevel.Fastest, on generated English
 * text instead of the seed's downloaded alice29.txt).
 */
public class Io000Bench {

    /** The file is opened once per case (GlobalSetup); each call rewinds and reads to the end. */
    @Meta({"seed=000", "section=IO"})
    public static class FileStreamRead {
        @Param({"1", "4096"}) int BufferSize;
        FileIoBench.TempFiles files;
        FileInputStream in;
        AsynchronousFileChannel channel;
        final byte[] buf = new byte[1024];

        @Setup public void setup() throws IOException {
            files = new FileIoBench.TempFiles(0);
            byte[] data = new byte[10_000_000];
            new Random(42).nextBytes(data);
            Files.write(files.src, data);
            in = new FileInputStream(files.src.toFile());
            channel = AsynchronousFileChannel.open(files.src, StandardOpenOption.READ);
        }

        @TearDown public void teardown() throws IOException {
            in.close();
            channel.close();
            files.delete();
        }

        /** BufferSize 1 ↔ the bare FileInputStream (FileStream disables its buffer for sizes 0 and 1). */
        @Benchmark(categories = {"file_io"}, description = "Rewind, then read 10 MB with a 1 KiB user buffer")
        @Meta("fidelity=faithful")
        public long Read() throws IOException {
            in.getChannel().position(0);
            InputStream s = BufferSize == 1 ? in : new BufferedInputStream(in, BufferSize);
            long total = 0;
            int n;
            while ((n = s.read(buf)) > 0) total += n;
            return total;
        }

        @Benchmark(categories = {"file_io"}, description = "The same through AsynchronousFileChannel, each read awaited")
        @Meta("fidelity=partial: the 4096-byte buffer over AsynchronousFileChannel is the port's own (the JDK has no buffered async stream)")
        public long ReadAsync() throws Exception {
            FileIoBench.AsyncReader r = new FileIoBench.AsyncReader(channel, BufferSize);
            long total = 0;
            int n;
            while ((n = r.read(buf)) > 0) total += n;
            return total;
        }
    }

    static final String CONTENTS;

    static {
        StringBuilder b = new StringBuilder(100000);
        for (int i = 0; i < 100000; i++) b.append((char) ('a' + i % 26));
        CONTENTS = b.toString();
    }

    public static class WriteAllText {
        FileIoBench.TempFiles files;
        String contents;

        @Setup public void setup() throws IOException {
            files = new FileIoBench.TempFiles(0);
            contents = CONTENTS;
        }

        @TearDown public void teardown() throws IOException { files.delete(); }

        @Benchmark(categories = {"file_io"},
                description = "Open, write 100 000 characters as UTF-8 through AsynchronousFileChannel (awaited), close")
        @Meta({"seed=000", "section=IO", "fidelity=faithful"})
        public void WriteAllTextAsync() throws Exception {
            ByteBuffer b = ByteBuffer.wrap(contents.getBytes(StandardCharsets.UTF_8));
            try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(files.dst, StandardOpenOption.WRITE,
                    StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
                long pos = 0;
                while (b.hasRemaining()) pos += ch.write(b, pos).get();
            }
        }

        @Benchmark(categories = {"file_io"}, description = "Files.writeString (UTF-8), Java's File.WriteAllText (not a seed method)")
        @Meta({"extra=true", "related=000 · IO"})
        public Path WriteAllText() throws IOException {
            return Files.writeString(files.dst, contents);
        }
    }

    /** 152 089 bytes of text (the size of alice29.txt) compressed by a Deflater at level 1. */
    @Meta({"seed=000", "section=IO"})
    public static class Compression {
        byte[] data;
        final byte[] out = new byte[1 << 16];

        @Setup public void setup() {
            String[] words = ("alice was beginning to get very tired of sitting by her sister on the bank and of "
                    + "having nothing to do once or twice she had peeped into the book her sister was "
                    + "reading but it had no pictures or conversations in it").split(" ");
            Random rnd = new Random(29);
            StringBuilder b = new StringBuilder();
            while (b.length() < 152089) b.append(words[rnd.nextInt(words.length)]).append(' ');
            data = b.substring(0, 152089).getBytes(StandardCharsets.US_ASCII);
        }

        @Benchmark(categories = {"file_io"}, description = "Deflater(BEST_SPEED) over the whole text")
        @Meta("fidelity=different: Deflater at BEST_SPEED instead of Brotli (no Brotli in the JDK), on generated text instead of alice29.txt")
        public long Compress() {
            Deflater d = new Deflater(Deflater.BEST_SPEED);
            try {
                d.setInput(data);
                d.finish();
                long total = 0;
                while (!d.finished()) total += d.deflate(out);
                return total;
            } finally {
                d.end();
            }
        }
    }
}
