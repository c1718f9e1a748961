// Arrays, Strings, Spans experiments of seeds 000 (".NET 6": Arrays, Strings, Spans) and 003
// (".NET Core 3.0": Span and Friends, Arrays and Strings), ported to JavaScript strings, Array,
// typed arrays (char[] ↔ Uint16Array, int[] ↔ Int32Array) and Buffer (byte[]/Span<byte>). Inputs
// live in each case's state (setup), so V8 cannot fold a call on constants away.
import { randomBytes } from 'node:crypto';
import { bench, group } from 'perflab';

const meta = (seed, section) => ({ seed, section });
const S000 = meta('000', 'Arrays, Strings, Spans');
const S003 = meta('003', 'Arrays and Strings');
const SPAN = meta('003', 'Span and Friends');
const TEXT = { ...S000, fidelity: 'partial: string.Replace on ~100 KB of generated CRLF text; the seed downloads the complete works of Mark Twain (no network here)' };
const state = (s) => () => s;

// V8 hoists a pure string operation whose input never changes out of perflab's timed loop (loop
// peeling + value numbering: measured as an empty benchmark). Where that happens, the input
// alternates between two equal copies, so every call's input differs (a counter: ~1 ns a call).
const alternating = (value) => () => ({ inputs: [value, Array.from(value).join('')], i: 0 });
const next = (s) => s.inputs[(s.i = (s.i + 1) | 0) & 1];

// string.IndexOf('.') ↔ String.prototype.indexOf.
bench('IndexOf', (s) => next(s).indexOf('.'), {
  setup: alternating("Let's see how fast we can find the period towards the end of this string. Pretty fast?"),
  categories: ['arrays_strings', 'quick'], meta: { ...S003,
    fidelity: 'partial: alternates between two equal copies of the input (V8 hoists a pure call on one)' },
});

// Span<byte>.IndexOfAny('.', '?') ↔ the smaller of two Buffer.indexOf (Buffer has no IndexOfAny).
bench('IndexOfAny', ({ bytes }) => {
  const a = bytes.indexOf(0x2E); // '.'
  const b = bytes.indexOf(0x3F); // '?'
  return a < 0 ? b : b < 0 ? a : Math.min(a, b);
}, {
  setup: state({ bytes: Buffer.from("This is a test to see improvements to IndexOfAny. How'd they work?") }),
  categories: ['arrays_strings'], meta: { ...SPAN, seed_method: 'IndexOf', // the seed's IndexOf calls IndexOfAny
    fidelity: 'partial: Buffer has no IndexOfAny; two Buffer.indexOf and the smaller index' },
});

// string.Join(", ", List<string>) ↔ Array.prototype.join.
bench('Join', ({ strings }) => strings.join(', '), {
  setup: state({ strings: ['Hi', 'How', 'are', 'you', 'today'] }), categories: ['arrays_strings'],
  meta: { ...S000, fidelity: 'faithful' },
});

// string.Replace on a ~100 KB text (seed: a downloaded book; here generated prose with CRLF) ↔
// String.prototype.replaceAll with a string pattern.
group('Replace', {
  setup: () => ({ text: 'The quick brown fox jumps over the lazy dog. Pack my box with five dozen jugs.\r\n'.repeat(1200) }),
}, () => {
  bench('Yell', ({ text }) => text.replaceAll('.', '!'), { categories: ['arrays_strings'], meta: TEXT });
  bench('ConcatLines', ({ text }) => text.replaceAll('\n', ''), { categories: ['arrays_strings'], meta: TEXT });
  bench('NormalizeEndings', ({ text }) => text.replaceAll('\r\n', '\n'), { categories: ['arrays_strings'], meta: TEXT });
});

// Convert.ToHexString(64 random bytes) ↔ buf.toString('hex') (lowercase digits; .NET's are upper case).
bench('ToHexString', ({ data }) => data.toString('hex'), {
  setup: () => ({ data: randomBytes(64) }),        // RandomNumberGenerator.Fill in the GlobalSetup
  categories: ['arrays_strings'], meta: { ...S000, fidelity: 'faithful' },
});

// Not a method of the seed: the reverse conversion, Buffer.from(hex, 'hex').
group('Hex', {
  params: { length: [100, 10000] },
  setup: ({ length }) => {
    const data = Buffer.alloc(length);
    for (let i = 0; i < length; i++) data[i] = i & 0xFF;
    return { hex: data.toString('hex') };
  },
}, () => {
  bench('FromHexString', ({ hex }) => Buffer.from(hex, 'hex'), { categories: ['arrays_strings'], meta: { extra: true, related: '000 · Arrays, Strings, Spans' } });
});

// Array.Fill(char[128], 'c') ↔ Uint16Array.prototype.fill; span.Fill ↔ fill on a subarray view
// (the view is JavaScript's Span: creating it is part of the call, as AsSpan() is in the seed).
bench('ArrayFill', ({ chars }) => { chars.fill(0x63); }, {
  setup: () => ({ chars: new Uint16Array(128) }), categories: ['arrays_strings'], meta: { ...S000, fidelity: 'faithful' },
});

bench('SpanFill', ({ chars }) => { chars.subarray(0).fill(0x63); }, {
  setup: () => ({ chars: new Uint16Array(128) }), categories: ['arrays_strings'],
  meta: { ...S000, fidelity: 'partial: no Span in JavaScript; subarray(0) allocates a view object (AsSpan() is a free struct), then the same TypedArray fill' },
});

// Array.Clear(int[10]) ↔ Int32Array.prototype.fill(0) (a typed array has no clear: fill(0) is its memset).
bench('Clear', ({ ints }) => { ints.fill(0); }, {
  setup: () => ({ ints: new Int32Array(10) }), categories: ['arrays_strings'],
  meta: { ...S000, seed_method: 'New', fidelity: 'faithful' }, // the seed's New: Array.Clear(array)
});

// Array.Reverse(int[256]) ↔ Array.prototype.reverse (in place).
bench('Reverse', ({ list }) => { list.reverse(); }, {
  setup: () => ({ list: Array.from({ length: 256 }, (_, i) => i) }), categories: ['arrays_strings'],
  meta: { ...S003, fidelity: 'faithful' },
});

// Span<byte>.SequenceCompareTo ↔ Buffer.compare (memcmp order: -1, 0, 1).
group('SequenceCompareTo', {
  params: { Length: [16, 256] },
  setup: ({ Length }) => {
    const orig = Buffer.alloc(Length);
    for (let i = 0; i < Length; i++) orig[i] = i & 0xFF;
    const last = Buffer.from(orig);
    last[Length - 1] = (last[Length - 1] + 1) & 0xFF;
    return { orig, same: Buffer.from(orig), last };
  },
}, () => {
  bench('CompareSame', ({ orig, same }) => Buffer.compare(orig, same), { categories: ['arrays_strings'], meta: { ...SPAN, fidelity: 'faithful' } });
  bench('CompareDifferLast', ({ orig, last }) => Buffer.compare(orig, last), { categories: ['arrays_strings'], meta: { ...SPAN, fidelity: 'faithful' } });
});

// string.Equals(a, b, StringComparison.OrdinalIgnoreCase) ↔ toLowerCase on both sides (inputs
// alternating, see above).
bench('EqualsIC', ({ a, b }) => next(a).toLowerCase() === next(b).toLowerCase(), {
  setup: () => ({ a: alternating('Some string')(), b: alternating('sOME sTrinG')() }),
  categories: ['arrays_strings'], meta: { ...S003,
    fidelity: 'partial: no case-insensitive compare in JavaScript; toLowerCase() makes two new strings, then ===' },
});

bench('ToUpperInvariant', (s) => next(s).toUpperCase(), {
  setup: alternating('This is a source string that needs to be capitalized.'), categories: ['arrays_strings'],
  meta: { ...SPAN, fidelity: 'partial: toUpperCase() allocates a new string; the seed writes into a reused char buffer' },
});

// string.Trim ↔ String.prototype.trim (the case's Data is the benchmark's argument).
bench('Trim', ({ Data }) => Data.trim(), {
  params: { Data: ['', ' abcdefg ', 'abcdefg'] }, categories: ['arrays_strings'],
  meta: { ...SPAN, fidelity: 'partial: trim() makes a new string when it trims; the seed returns a span' },
});
