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
        Duration ts = Duration.ofDays(3).plusHours(10).plusMinutes(2).plusSeconds(34).plusMillis(567);   // TimeSpan(3, 10, 2, 34, 567)
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
        @Meta("fidelity=faithful")
        public UUID ParseGuid() {
            return UUID.fromString(guid);
        }

        ByteBuffer guidBytes = ByteBuffer.allocate(16);   // the seed's reused byte[16]

        /** guid.TryWriteBytes(buffer); guid = new Guid(buffer): UUID has no byte[] form; its two longs
         *  into the reused ByteBuffer and back. */
        @Benchmark(categories = {"parsing_formatting"}, description = "UUID → 16 bytes → UUID through a reused ByteBuffer")
        @Meta("fidelity=partial: UUID has no byte form and is an object: two longs through a reused ByteBuffer, and each call allocates the new UUID (a Guid is a struct)")
        public UUID GuidToFromBytes() {
            ByteBuffer b = guidBytes;
            b.putLong(0, guidValue.getMostSignificantBits()).putLong(8, guidValue.getLeastSignificantBits());
            guidValue = new UUID(b.getLong(0), b.getLong(8));
            return guidValue;
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
        @Meta("fidelity=partial: OffsetDateTime.toString() is the ISO form with fraction and offset; the seed's ToString() is the culture's \"G\" pattern (date and time to the second, no zone)")
        public String DateTimeToString() {
            return now.toString();
        }

        @Benchmark(categories = {"parsing_formatting"}, description = "TimeSpan.ToString() ↔ Duration.toString()")
        @Meta("fidelity=partial: Duration.toString() is ISO 8601 (\"PT82H2M34.567S\"); the seed's ToString() is the \"c\" form 3.10:02:34.5670000")
        public String TimeSpanToString() {
            return ts.toString();
        }

        /** decimal.ToString() ↔ BigDecimal.toPlainString() (toString() caches its result in the object). */
        @Benchmark(categories = {"parsing_formatting"}, description = "BigDecimal(\"12345.6789\").toPlainString()")
        @Meta("fidelity=faithful")
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
