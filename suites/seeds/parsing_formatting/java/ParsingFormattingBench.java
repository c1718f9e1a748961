import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

import perflab.Benchmark;
import perflab.Meta;

/**
 * Parsing/Formatting experiments of seeds 003 (".NET Core 3.0": Parsing/Formatting) and 000 (".NET 6":
 * System Types), ported to Integer, UUID, java.time, BigDecimal, Runtime.Version and String.format. Inputs
 * live in fields of the benchmark object so the JIT cannot fold them into constants.
 */
public class ParsingFormattingBench {

    @Meta({"seed=003", "section=Parsing/Formatting"})
    public static class Parsing003 {
        String dec = "12345678", hex = "BC614E";
        String guid = "1f2e3d4c-5b6a-7988-0123-456789abcdef";
        UUID guidValue = UUID.fromString(guid);
        OffsetDateTime now = OffsetDateTime.of(2019, 4, 18, 13, 45, 30, 123456000, ZoneOffset.UTC);
        String r = DateTimeFormatter.RFC_1123_DATE_TIME.format(now);   // DateTime "r" (RFC 1123)
        String o = now.toString();                                     // DateTime "o" (round-trip ISO 8601)
        Duration ts = Duration.ofDays(1).plusHours(2).plusMinutes(3).plusSeconds(4).plusMillis(5);
        BigDecimal dec2 = new BigDecimal("12345.6789");
        int digit = 7;

        @Benchmark(categories = {"parsing_formatting"}, description = "Integer.parseInt(\"12345678\")")
        @Meta("fidelity=faithful")
        public int ParseInt32Dec() {
            return Integer.parseInt(dec);
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "Integer.parseInt(\"BC614E\", 16)")
        @Meta("fidelity=faithful")
        public int ParseInt32Hex() {
            return Integer.parseInt(hex, 16);
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "Guid.ParseExact(s, \"D\") ↔ UUID.fromString")
        public UUID ParseGuid() {
            return UUID.fromString(guid);
        }

        /** new Guid(guid.ToByteArray()): UUID has no byte[] form; ByteBuffer out and back. */
        @Benchmark(categories = {"parsing_formatting"}, description = "UUID → 16 bytes → UUID through a ByteBuffer")
        public UUID GuidToFromBytes() {
            byte[] bytes = ByteBuffer.allocate(16).putLong(guidValue.getMostSignificantBits())
                    .putLong(guidValue.getLeastSignificantBits()).array();
            ByteBuffer b = ByteBuffer.wrap(bytes);
            return new UUID(b.getLong(), b.getLong());
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "DateTime.Parse of an RFC 1123 (\"r\") string ↔ ZonedDateTime.parse(RFC_1123_DATE_TIME)")
        @Meta("fidelity=faithful")
        public ZonedDateTime ParseR() {
            return ZonedDateTime.parse(r, DateTimeFormatter.RFC_1123_DATE_TIME);
        }

        @Benchmark(categories = {"parsing_formatting", "quick"}, description = "DateTime.Parse of an ISO 8601 (\"o\") string ↔ OffsetDateTime.parse")
        @Meta("fidelity=faithful")
        public OffsetDateTime ParseO() {
            return OffsetDateTime.parse(o);
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "OffsetDateTime.toString()")
        public String DateTimeToString() {
            return now.toString();
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "TimeSpan.ToString() ↔ Duration.toString()")
        public String TimeSpanToString() {
            return ts.toString();
        }

        /** decimal.ToString() ↔ BigDecimal.toPlainString() (toString() caches its result in the object). */
        @Benchmark(categories = {"parsing_formatting"}, description = "BigDecimal(\"12345.6789\").toPlainString()")
        public String DecimalToString() {
            return dec2.toPlainString();
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "Integer.toString(7)")
        @Meta("fidelity=faithful")
        public String SingleDigitToString() {
            return Integer.toString(digit);
        }
    }

    public static class SystemTypes000 {
        UUID guidValue = UUID.fromString("1f2e3d4c-5b6a-7988-0123-456789abcdef");
        Runtime.Version version = Runtime.Version.parse("6.1.21412.16");
        // The seed's arguments: 'a', (Rune)'b', (nint)'c', (nuint)'d' → "a b 99 100" (a long is a 64-bit nint).
        char a = 'a', b = 'b';
        long c = 'c', d = 'd';

        @Benchmark(categories = {"parsing_formatting"}, description = "UUID.toString() (not a method of the seed)")
        @Meta({"extra=true", "related=000 · System Types"})
        public String GuidToString() {
            return guidValue.toString();
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "new Version(6, 1, 21412, 16).ToString() ↔ Runtime.Version.toString()")
        @Meta({"seed=000", "section=System Types", "fidelity=faithful"})
        public String VersionToString() {
            return version.toString();
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "string.Format(\"{0} {1} {2} {3}\", 'a', (Rune)'b', (nint)'c', (nuint)'d') ↔ String.format(\"%s %s %s %s\", 'a', 'b', 99L, 100L)")
        @Meta({"seed=000", "section=System Types", "fidelity=faithful"})
        public String Format() {
            return String.format("%s %s %s %s", a, b, c, d);
        }
    }
}
