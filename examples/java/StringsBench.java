import perflab.Baseline;
import perflab.Benchmark;
import perflab.Param;
import perflab.Setup;

/** Three ways to join words: compare them (Ratio against the baseline) and their allocations. */
public class StringsBench {
    @Param({"10", "100"})
    int size;

    String[] words;

    @Setup
    public void prepare() {
        words = new String[size];
        for (int i = 0; i < size; i++) words[i] = "w" + i;
    }

    @Benchmark
    @Baseline
    public String builder() {
        StringBuilder sb = new StringBuilder();
        for (String w : words) sb.append(w).append(',');
        return sb.toString();
    }

    @Benchmark
    public String join() {
        return String.join(",", words);
    }

    @Benchmark
    public String concat() {
        String s = "";
        for (String w : words) s += w + ",";
        return s;
    }
}
