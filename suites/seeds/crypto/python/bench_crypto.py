"""Seed 000 (".NET 6": Cryptography and Blazor's SHA-256), ported to hashlib, base64, os.urandom.
AES (the seed's Aes one-shot EncryptCbc/DecryptCbc) is not in Python's standard library: left out."""
import base64
import hashlib
import os

import perflab

META = {"seed": "000", "section": "Cryptography"}
FAITHFUL = {**META, "fidelity": "faithful"}
SALT = bytes([1, 2, 3, 4, 5, 6, 7, 8])


@perflab.benchmark(name="Pbkdf2", categories=["crypto", "quick"],
                   meta={**FAITHFUL, "seed_method": "New"})  # the seed's New calls Rfc2898DeriveBytes.Pbkdf2
def pbkdf2():
    """Rfc2898DeriveBytes.Pbkdf2("my super strong password", salt, 1000, SHA256, 16)."""
    return hashlib.pbkdf2_hmac("sha256", b"my super strong password", SALT, 1000, 16)


@perflab.benchmark(name="GetBytes", categories=["crypto"], meta=FAITHFUL)
def get_bytes():
    """RandomNumberGenerator.Create() + GetBytes(new byte[8]): Python's CSPRNG has no object to
    create (os.urandom is the whole API; .NET 6's Create returns a singleton too)."""
    return os.urandom(8)


class Base64:
    """CryptoStream + ToBase64Transform over 10 000 000 bytes ↔ base64.b64encode."""

    def setup(self):
        self.data = bytes(i & 0xFF for i in range(10000000))

    @perflab.benchmark(name="Encode", categories=["crypto"], meta={**META, "fidelity": (
        "partial: one-shot base64.b64encode into a new 13 MB bytes object; the seed streams through a "
        "CryptoStream into a reused MemoryStream (Python's only streaming base64, base64.encode, adds MIME line breaks)")})
    def encode(self):
        return base64.b64encode(self.data)


# The seed's Blazor page hashes Shakespeare's Sonnet 18 (632 bytes of UTF-8, curly apostrophes and all)
# 2000 times under a Stopwatch; one call here is one of those SHA256.HashData calls.
SONNET_18 = """Shall I compare thee to a summer’s day?
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
So long lives this, and this gives life to thee."""


class Sha256:
    """SHA256.HashData(Encoding.UTF8.GetBytes(Sonnet18)) ↔ hashlib.sha256(data).digest()."""

    def setup(self):
        self.data = SONNET_18.encode("utf-8")  # outside the timed loop, as in the seed

    @perflab.benchmark(name="HashData", categories=["crypto"],
                       meta={"seed": "000", "section": "Blazor and mono", "fidelity": "faithful",
                             "seed_method": "Hash"})  # one of the 2000 SHA256.HashData calls of the page's Hash
    def hash_data(self):
        return hashlib.sha256(self.data).digest()
