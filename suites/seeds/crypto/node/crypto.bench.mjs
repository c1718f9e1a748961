// Seed 000 (".NET 6": Cryptography, and Blazor's SHA-256), ported to node:crypto (OpenSSL) and
// Buffer's base64. Unlike Python's standard library, Node has AES, so the seed's one-shot
// Aes.DecryptCbc is ported too.
import crypto from 'node:crypto';
import { bench, group } from 'perflab';

const META = { seed: '000', section: 'Cryptography' };

// Rfc2898DeriveBytes.Pbkdf2("my super strong password", salt, 1000, SHA256, 16).
bench('Pbkdf2', ({ password, salt }) => crypto.pbkdf2Sync(password, salt, 1000, 16, 'sha256'), {
  setup: () => ({ password: 'my super strong password', salt: Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]) }),
  categories: ['crypto', 'quick'], meta: { ...META, seed_method: 'New', fidelity: 'faithful' }, // the seed's New
});

// RandomNumberGenerator.GetBytes(8) ↔ crypto.randomBytes(8) (a new 8-byte buffer each time).
bench('GetBytes', ({ n }) => crypto.randomBytes(n), {
  setup: () => ({ n: 8 }), categories: ['crypto', 'quick'], meta: { ...META, fidelity: 'faithful' },
});

// CryptoStream + ToBase64Transform over 10 000 000 bytes ↔ Buffer.toString('base64') (Node has no
// streaming base64 encoder that writes into a reused buffer).
bench('Encode', ({ data }) => data.toString('base64'), {
  setup: () => {
    const data = Buffer.alloc(10000000);
    for (let i = 0; i < data.length; i++) data[i] = i & 0xFF;
    return { data };
  },
  categories: ['crypto'],
  meta: { ...META, fidelity: 'partial: one-shot Buffer.toString(\'base64\') into a new 13 MB string; the seed streams through a CryptoStream into a reused MemoryStream (Node has no base64 stream)' },
});

// The seed's `New`: aes.DecryptCbc(ciphertext, iv) of "This is a test.  This is only a test." with
// a 256-bit key (Aes.Create()'s default) and PKCS#7 padding ↔ createDecipheriv + update + final,
// Node's one-shot form.
bench('DecryptCbc', ({ key, iv, ciphertext }) => {
  const d = crypto.createDecipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([d.update(ciphertext), d.final()]);
}, {
  setup: () => {
    const key = crypto.randomBytes(32);
    const iv = crypto.randomBytes(16);
    const e = crypto.createCipheriv('aes-256-cbc', key, iv);
    const ciphertext = Buffer.concat([e.update('This is a test.  This is only a test.', 'utf8'), e.final()]);
    return { key, iv, ciphertext };
  },
  categories: ['crypto'], meta: { ...META, seed_method: 'New', fidelity: 'faithful' }, // the seed's New (L3179)
});

// The seed's Blazor page hashes Shakespeare's Sonnet 18 (632 bytes of UTF-8) 2000 times under a
// Stopwatch; one call here is one SHA256.HashData ↔ createHash('sha256').update(data).digest() (the
// one-shot crypto.hash is Node ≥ 21.7, and every Node version should run the same code).
const SONNET_18 = `Shall I compare thee to a summer’s day?
Thou art more lovely and more temperate:
Rough winds do shake the darling buds of May,
And summer’s lease hath all too short a date;
Sometime too hot the eye of heaven shines,
And often is his gold complexion dimm'd;
And every fair from fair sometime declines,
By chance or nature’s changing course untrimm'd;
But thy eternal summer shall not fade,
Nor lose possession of that fair thou ow’st;
Nor shall death brag thou wander’st in his shade,
When in eternal lines to time thou grow’st:
So long as men can breathe or eyes can see,
So long lives this, and this gives life to thee.`;

group('Sha256', () => {
  bench('HashData', ({ data }) => crypto.createHash('sha256').update(data).digest(), {
    setup: () => ({ data: Buffer.from(SONNET_18, 'utf8') }), categories: ['crypto'],
    meta: { seed: '000', section: 'Blazor and mono', seed_method: 'Hash', fidelity: 'partial: createHash().update().digest() makes a Hash object per call (the one-shot crypto.hash is Node >= 21.7)' },
  });
});

// Not ported: X509 certificate enumeration — Node can parse a certificate (crypto.X509Certificate)
// but has no certificate store and cannot make one.
