// Seed 003 (".NET Core 3.0": Regular Expressions), ported to JavaScript's RegExp (V8's irregexp):
// the e-mail address pattern of .NET's EmailAddressAttribute, matched against one address.
// RegexOptions.IgnoreCase ↔ the `i` flag. RegexOptions.Compiled has no switch in JavaScript: V8
// starts every regexp in its bytecode interpreter and compiles it to native code once it is used
// (regexp tier-up), so the precompiled object below is the compiled form. ExplicitCapture has no
// counterpart (it only changes which groups capture).
import { bench } from 'perflab';

// Copied verbatim from the seed (a C# verbatim string: the backslashes are the regex's own); no `u`
// flag, so \uXXXX ranges are UTF-16 code units as in .NET.
const EMAIL = /^((([a-z]|\d|[!#\$%&'\*\+\-\/=\?\^_`{\|}~]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])+(\.([a-z]|\d|[!#\$%&'\*\+\-\/=\?\^_`{\|}~]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])+)*)|((\x22)((((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(([\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|\x21|[\x23-\x5b]|[\x5d-\x7e]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(\\([\x01-\x09\x0b\x0c\x0d-\x7f]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]))))*(((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(\x22)))@((([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])([a-z]|\d|-|\.|_|~|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])*([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])))\.)+(([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])([a-z]|\d|-|\.|_|~|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])*([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])))\.?$/i;
const EMAIL_SOURCE = EMAIL.source;
const META = { seed: '003', section: 'Regular Expressions' };
const setup = () => ({ regex: EMAIL, source: EMAIL_SOURCE, address: 'someAddress@someCompany.com' });

// IsMatch on the precompiled pattern ↔ RegExp.prototype.test on one RegExp object.
bench('RegexCompiled', ({ regex, address }) => regex.test(address),
  { setup, categories: ['regex', 'quick'], meta: { ...META, fidelity: 'faithful' } });

// The static Regex.IsMatch(input, pattern, options) shape: a RegExp constructed from the pattern on
// every call (V8 finds the compiled pattern in its compilation cache), then test.
bench('RegexInterpreted', ({ source, address }) => new RegExp(source, 'i').test(address),
  { setup, categories: ['regex'], meta: { extra: true, related: '003 · Regular Expressions' } });
