"""Seed 000 (".NET 6": Cryptography and Blazor's SHA-256), ported to hashlib, base64, os.urandom.
AES (the seed's Aes one-shot EncryptCbc/DecryptCbc) is not in Python's standard library: left out."""
import base64
import hashlib
import os

import perflab

META = {"seed": "000", "section": "Cryptography"}
FAITHFUL = {**META, "fidelity": "faithful"}
SALT = bytes([1, 2, 3, 4, 5, 6, 7, 8])


@perflab.benchmark(name="Pbkdf2", categories=["crypto", "quick"], meta=FAITHFUL)
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

    @perflab.benchmark(name="Encode", categories=["crypto"], meta=META)
    def encode(self):
        return base64.b64encode(self.data)


class Sha256:
    """SHA256.HashData over some UTF-8 text (seed: Blazor's Counter hashing Shakespeare)."""

    params = {"length": [100, 100000]}

    def setup(self):
        text = "To be, or not to be, that is the question: Whether 'tis nobler in the mind to suffer "
        self.data = (text * (self.length // len(text) + 1)).encode()[: self.length]

    @perflab.benchmark(name="HashData", categories=["crypto"], meta={"seed": "000", "section": "Blazor and mono"})
    def hash_data(self):
        return hashlib.sha256(self.data).digest()
