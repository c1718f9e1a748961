import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

import perflab.Benchmark;
import perflab.Meta;
import perflab.Param;
import perflab.Setup;

/**
 * Arrays, Strings, Spans experiments of seeds 000 (".NET 6": Arrays, Strings, Spans) and 003 (".NET Core
 * 3.0": Span and Friends, Arrays and Strings), ported to String, java.util.Arrays and java.util.HexFormat.
 * Inputs live in fields of the benchmark object so the JIT cannot fold them into constants.
 */
public class ArraysStringsBench {

    @Meta({"seed=003", "section=Arrays and Strings"})
    public static class Strings003 {
        String periodText = "Let's see how fast we can find the period towards the end of this string. Pretty fast?";
        String a = "Some string", b = "sOME sTrinG";

        @Benchmark(categories = {"arrays_strings", "quick"}, description = "string.IndexOf('.') ↔ String.indexOf('.')")
        @Meta("fidelity=faithful")
        public int IndexOf() {
            return periodText.indexOf('.');
        }

        @Benchmark(categories = {"arrays_strings"}, description = "Equals(…, OrdinalIgnoreCase) ↔ equalsIgnoreCase")
        @Meta("fidelity=faithful")
        public boolean EqualsIC() {
            return a.equalsIgnoreCase(b);
        }
    }

    @Meta({"seed=003", "section=Arrays and Strings"})
    public static class Reversal {
        int[] arr;

        @Setup public void setup() {
            arr = new int[256];
            for (int i = 0; i < arr.length; i++) arr[i] = i;
        }

        /** Array.Reverse(int[256]): java.util.Arrays has no reverse for arrays; the plain swap loop. */
        @Benchmark(categories = {"arrays_strings"}, description = "Reverse an int[256] in place (swap loop)")
        @Meta("fidelity=partial: java.util.Arrays has no reverse for an int[]; the port's swap loop")
        public void Reverse() {
            int[] a = arr;
            for (int i = 0, j = a.length - 1; i < j; i++, j--) {
                int t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
        }
    }

    @Meta({"seed=003", "section=Span and Friends"})
    public static class Spans003 {
        byte[] bytes = "This is a test to see improvements to IndexOfAny. How'd they work?".getBytes(StandardCharsets.UTF_8);
        String source = "This is a source string that needs to be capitalized.";

        /** Span&lt;byte&gt;.IndexOfAny('.', '?'): Java has no IndexOfAny; the loop it stands for. */
        @Benchmark(categories = {"arrays_strings"}, description = "First index of '.' or '?' in a byte[] (loop)")
        @Meta({"seed_method=IndexOf", "fidelity=partial: no IndexOfAny for a byte[] in the JDK; the port's loop over the bytes"})
        public int IndexOfAny() {
            byte[] b = bytes;
            for (int i = 0; i < b.length; i++) {
                if (b[i] == '.' || b[i] == '?') return i;
            }
            return -1;
        }

        @Benchmark(categories = {"arrays_strings"}, description = "ToUpperInvariant ↔ toUpperCase(Locale.ROOT)")
        @Meta("fidelity=partial: toUpperCase(Locale.ROOT) allocates a new String; the seed writes into a reused char buffer")
        public String ToUpperInvariant() {
            return source.toUpperCase(Locale.ROOT);
        }
    }

    /** Span&lt;byte&gt;.SequenceCompareTo ↔ Arrays.compareUnsigned (a vectorised mismatch; .NET's bytes are unsigned). */
    @Meta({"seed=003", "section=Span and Friends"})
    public static class SequenceCompareTo {
        @Param({"16", "256"}) int Length;
        byte[] orig, same, last;

        @Setup public void setup() {
            orig = new byte[Length];
            for (int i = 0; i < Length; i++) orig[i] = (byte) i;
            same = orig.clone();
            last = orig.clone();
            last[Length - 1]++;
        }

        @Benchmark(categories = {"arrays_strings"}, description = "Arrays.compareUnsigned of two equal byte arrays")
        @Meta("fidelity=faithful")
        public int CompareSame() {
            return Arrays.compareUnsigned(orig, same);
        }

        @Benchmark(categories = {"arrays_strings"}, description = "Arrays.compareUnsigned of arrays differing in the last byte")
        @Meta("fidelity=faithful")
        public int CompareDifferLast() {
            return Arrays.compareUnsigned(orig, last);
        }
    }

    @Meta({"seed=003", "section=Span and Friends"})
    public static class Trimming {
        @Param({"", " abcdefg ", "abcdefg"}) String Data;

        /** string.Trim() ↔ String.strip() (Unicode white space, like .NET's Trim). */
        @Benchmark(categories = {"arrays_strings"}, description = "String.strip()")
        @Meta("fidelity=partial: strip() makes a new String when it trims; the seed returns a span")
        public String Trim() {
            return Data.strip();
        }
    }

    @Meta({"seed=000", "section=Arrays, Strings, Spans", "fidelity=faithful"})
    public static class Strings000 {
        String[] strings = {"Hi", "How", "are", "you", "today"};

        @Benchmark(categories = {"arrays_strings"}, description = "string.Join(\", \", 5 strings) ↔ String.join")
        public String Join() {
            return String.join(", ", strings);
        }
    }

    /** string.Replace on a ~100 KB text (seed: a downloaded book; here generated prose with CRLF). */
    @Meta({"seed=000", "section=Arrays, Strings, Spans",
           "fidelity=partial: string.Replace on ~100 KB of generated CRLF text; the seed downloads the complete works of Mark Twain (no network here)"})
    public static class Replace {
        String text;

        @Setup public void setup() {
            text = "The quick brown fox jumps over the lazy dog. Pack my box with five dozen jugs.\r\n".repeat(1200);
        }

        @Benchmark(categories = {"arrays_strings"}, description = "replace('.', '!')")
        public String Yell() {
            return text.replace('.', '!');
        }

        @Benchmark(categories = {"arrays_strings"}, description = "replace(\"\\n\", \"\")")
        public String ConcatLines() {
            return text.replace("\n", "");
        }

        @Benchmark(categories = {"arrays_strings"}, description = "replace(\"\\r\\n\", \"\\n\")")
        public String NormalizeEndings() {
            return text.replace("\r\n", "\n");
        }
    }

    /** Convert.ToHexString(64 random bytes) ↔ java.util.HexFormat (JDK 17), upper case as .NET's. */
    @Meta({"seed=000", "section=Arrays, Strings, Spans", "fidelity=faithful"})
    public static class Hex {
        byte[] data;
        final HexFormat upper = HexFormat.of().withUpperCase();

        @Setup public void setup() {
            data = new byte[64];
            new SecureRandom().nextBytes(data);     // RandomNumberGenerator.Fill in the GlobalSetup
        }

        @Benchmark(categories = {"arrays_strings"}, description = "HexFormat.of().withUpperCase().formatHex of 64 random bytes")
        public String ToHexString() {
            return upper.formatHex(data);
        }
    }

    /** Not a method of the seed: the reverse conversion, HexFormat.parseHex. */
    @Meta({"extra=true", "related=000 · Arrays, Strings, Spans"})
    public static class HexDecode {
        @Param({"100", "10000"}) int length;
        String hex;
        final HexFormat upper = HexFormat.of().withUpperCase();

        @Setup public void setup() {
            byte[] data = new byte[length];
            for (int i = 0; i < length; i++) data[i] = (byte) i;
            hex = upper.formatHex(data);
        }

        @Benchmark(categories = {"arrays_strings"}, description = "HexFormat.parseHex")
        public byte[] FromHexString() {
            return upper.parseHex(hex);
        }
    }

    @Meta({"seed=000", "section=Arrays, Strings, Spans"})
    public static class Fills {
        final char[] chars = new char[128];
        final int[] ints10 = new int[10];

        @Benchmark(categories = {"arrays_strings"}, description = "Array.Fill(char[128], 'c') ↔ Arrays.fill")
        @Meta("fidelity=faithful")
        public void ArrayFill() {
            Arrays.fill(chars, 'c');
        }

        /** Span.Fill over the whole char[128] ↔ Arrays.fill(array, from, to, value): Java has no Span, and
         *  the range overload (bounds-checked, as AsSpan() is) is its view of part or all of an array. */
        @Benchmark(categories = {"arrays_strings"}, description = "Arrays.fill(chars, 0, 128, 'c')")
        @Meta("fidelity=partial: no Span in Java; the range overload Arrays.fill(array, 0, 128, 'c') stands for AsSpan().Fill")
        public void SpanFill() {
            Arrays.fill(chars, 0, chars.length, 'c');
        }

        /** Array.Clear(int[10]): Java has no clear; filling with 0 is its idiom (and its memset intrinsic). */
        @Benchmark(categories = {"arrays_strings"}, description = "Array.Clear(int[10]) ↔ Arrays.fill(…, 0)")
        @Meta({"seed_method=New", "fidelity=faithful"})   // the seed's New: Array.Clear(array)
        public void Clear() {
            Arrays.fill(ints10, 0);
        }
    }
}
