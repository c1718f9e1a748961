// Parsing/Formatting experiments of seeds 003 (".NET Core 3.0": Parsing/Formatting) and 000
// (".NET 6": System Types), ported to Number.parseInt, Date, Number/String conversion, Array.join
// and template literals. Inputs live in each case's state (setup), so V8 cannot fold them away.
import { bench } from 'perflab';

const S003 = { seed: '003', section: 'Parsing/Formatting' };
const S000 = { seed: '000', section: 'System Types' };
const state = (s) => () => s;

// Int32.Parse ↔ Number.parseInt(s, 10); Int32.Parse(s, NumberStyles.HexNumber) ↔ radix 16.
bench('ParseInt32Dec', ({ s }) => Number.parseInt(s, 10), {
  setup: state({ s: '12345678' }), categories: ['parsing_formatting'], meta: { ...S003, fidelity: 'faithful' },
});

bench('ParseInt32Hex', ({ s }) => Number.parseInt(s, 16), {
  setup: state({ s: 'BC614E' }), categories: ['parsing_formatting'], meta: { ...S003, fidelity: 'faithful' },
});

// 2019-04-18 13:45:30.123 UTC (a JavaScript Date keeps milliseconds only).
const NOW = new Date(Date.UTC(2019, 3, 18, 13, 45, 30, 123));

// DateTime.ParseExact(s, "r") (RFC 1123: "Thu, 18 Apr 2019 13:45:30 GMT") ↔ Date.parse, whose
// fallback parser reads that form (the result is the time value, as a DateTime is a value).
bench('ParseR', ({ s }) => Date.parse(s), {
  setup: state({ s: NOW.toUTCString() }), categories: ['parsing_formatting'],
  meta: { ...S003, fidelity: "partial: Date.parse is a lenient parser that tries formats in turn; the seed's ParseExact parses one fixed format (\"r\")" },
});

// DateTime.ParseExact(s, "o") (round-trip ISO 8601) ↔ Date.parse of toISOString()'s form
// ("2019-04-18T13:45:30.123Z"), the format ECMAScript specifies.
bench('ParseO', ({ s }) => Date.parse(s), {
  setup: state({ s: NOW.toISOString() }), categories: ['parsing_formatting', 'quick'],
  meta: { ...S003, fidelity: "partial: Date.parse is a lenient parser that tries formats in turn; the seed's ParseExact parses one fixed format (\"o\")" },
});

// DateTime.ToString() ↔ Date.prototype.toString() (the default text form, with the zone's name).
bench('DateTimeToString', ({ d }) => d.toString(), {
  setup: state({ d: NOW }), categories: ['parsing_formatting'],
  meta: { ...S003, fidelity: 'partial: Date.prototype.toString() converts to the local zone and names it; '
    + 'the seed\'s ToString() is the culture\'s "G" pattern (date and time to the second, no zone)' },
});

// int.ToString() of a single digit ↔ Number.prototype.toString.
bench('SingleDigitToString', ({ n }) => n.toString(), {
  setup: state({ n: 7 }), categories: ['parsing_formatting'], meta: { ...S003, fidelity: 'faithful' },
});

// new Version(6, 1, 21412, 16).ToString() ↔ join of the four numbers.
bench('VersionToString', ({ v }) => v.join('.'), {
  setup: state({ v: [6, 1, 21412, 16] }), categories: ['parsing_formatting'],
  meta: { ...S000, fidelity: 'partial: no Version type in JavaScript; Array.join of the four numbers stands for Version.ToString' },
});

// string.Format("{0} {1} {2} {3}", 'a', (Rune)'b', (nint)'c', (nuint)'d') → "a b 99 100" ↔ a template
// literal of two one-character strings and two numbers (JavaScript has no format-string function; the
// template is what JavaScript code writes).
bench('Format', ({ a, b, c, d }) => `${a} ${b} ${c} ${d}`, {
  setup: state({ a: 'a', b: 'b', c: 99, d: 100 }), categories: ['parsing_formatting'],
  meta: { ...S000, fidelity: 'partial: no format-string function in JavaScript; a template literal (compiled, not parsed per call) stands for string.Format' },
});

// Not ported: ParseGuid, GuidToString, GuidToFromBytes — no UUID/GUID type in Node's standard
// library (crypto.randomUUID only makes a string); TimeSpanToString — no duration type (Temporal is
// not in Node 18/22); DecimalToString — no decimal type.
