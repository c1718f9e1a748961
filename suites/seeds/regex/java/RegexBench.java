import java.util.regex.Pattern;

import perflab.Benchmark;
import perflab.Meta;

/**
 * Seed 003 (".NET Core 3.0": Regular Expressions), ported to java.util.regex: the e-mail address pattern of
 * .NET's EmailAddressAttribute, matched against one address. RegexOptions.IgnoreCase ↔
 * Pattern.CASE_INSENSITIVE; java.util.regex has a single engine (no interpreter/compiler switch) and no
 * pattern cache; ExplicitCapture only changes which groups capture.
 */
public class RegexBench {
    /** Copied verbatim from the seed (a C# verbatim string: every backslash doubled here). */
    static final String EMAIL_PATTERN =
            "^((([a-z]|\\d|[!#\\$%&'\\*\\+\\-\\/=\\?\\^_`{\\|}~]|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])+(\\.([a-z]" +
            "|\\d|[!#\\$%&'\\*\\+\\-\\/=\\?\\^_`{\\|}~]|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])+)*)" +
            "|((\\x22)((((\\x20|\\x09)*(\\x0d\\x0a))?(\\x20|\\x09)+)?(([\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]|\\x21" +
            "|[\\x23-\\x5b]|[\\x5d-\\x7e]|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])" +
            "|(\\\\([\\x01-\\x09\\x0b\\x0c\\x0d-\\x7f]|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF]))))*(((\\x20" +
            "|\\x09)*(\\x0d\\x0a))?(\\x20|\\x09)+)?(\\x22)))@((([a-z]|\\d" +
            "|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])|(([a-z]|\\d" +
            "|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])([a-z]|\\d|-|\\.|_|~" +
            "|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])*([a-z]|\\d" +
            "|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])))\\.)+(([a-z]" +
            "|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])|(([a-z]" +
            "|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])([a-z]|\\d|-|\\.|_|~" +
            "|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])*([a-z]" +
            "|[\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF])))\\.?$";

    final Pattern regex = Pattern.compile(EMAIL_PATTERN, Pattern.CASE_INSENSITIVE);
    String address = "someAddress@someCompany.com";
    String pattern = EMAIL_PATTERN;

    @Benchmark(categories = {"regex", "quick"}, description = "IsMatch on the precompiled Pattern (matcher(...).find())")
    @Meta({"seed=003", "section=Regular Expressions", "fidelity=faithful"})
    public boolean RegexCompiled() {
        return regex.matcher(address).find();
    }

    /** The static Regex.IsMatch(input, pattern, options) shape: Java has no cache, so the pattern is compiled on every call. */
    @Benchmark(categories = {"regex"}, description = "Pattern.compile(pattern, CASE_INSENSITIVE).matcher(...).find() on every call")
    @Meta({"extra=true", "related=003 · Regular Expressions"})   // not a method of the seed
    public boolean RegexInterpreted() {
        return Pattern.compile(pattern, Pattern.CASE_INSENSITIVE).matcher(address).find();
    }
}
