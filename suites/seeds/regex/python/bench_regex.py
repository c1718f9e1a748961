"""Seed 003 (".NET Core 3.0": Regular Expressions), ported to Python's re: the e-mail address
pattern of .NET's EmailAddressAttribute, matched against one address. RegexOptions.IgnoreCase ↔ re.I;
RegexOptions.Compiled has no counterpart (re always compiles to its own bytecode) and ExplicitCapture
neither (it only changes which groups capture)."""
import re

import perflab

# Copied verbatim from the seed (a C# verbatim string: backslashes are literal, as in a raw string).
EMAIL_PATTERN = r'''^((([a-z]|\d|[!#\$%&'\*\+\-\/=\?\^_`{\|}~]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])+(\.([a-z]|\d|[!#\$%&'\*\+\-\/=\?\^_`{\|}~]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])+)*)|((\x22)((((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(([\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|\x21|[\x23-\x5b]|[\x5d-\x7e]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(\\([\x01-\x09\x0b\x0c\x0d-\x7f]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]))))*(((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(\x22)))@((([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])([a-z]|\d|-|\.|_|~|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])*([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])))\.)+(([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])([a-z]|\d|-|\.|_|~|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])*([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])))\.?$'''

_REGEX = re.compile(EMAIL_PATTERN, re.IGNORECASE)
ADDRESS = "someAddress@someCompany.com"

META = {"seed": "003", "section": "Regular Expressions"}
FAITHFUL = {**META, "fidelity": "faithful"}


@perflab.benchmark(name="RegexCompiled", categories=["regex", "quick"], meta=FAITHFUL)
def regex_compiled():
    """IsMatch on the precompiled pattern."""
    return _REGEX.match(ADDRESS) is not None


@perflab.benchmark(name="RegexInterpreted", categories=["regex"],
                   meta={"extra": True, "related": "003 · Regular Expressions"})
def regex_interpreted():
    """re.match(pattern, …) through re's module-level cache (the static Regex.IsMatch shape)."""
    return re.match(EMAIL_PATTERN, ADDRESS, re.IGNORECASE) is not None
