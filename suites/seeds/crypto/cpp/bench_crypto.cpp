// Seed 000 (".NET 6": Cryptography), ported to C++17's standard library: only GetBytes has a
// counterpart — `using (var rng = RandomNumberGenerator.Create()) rng.GetBytes(new byte[8])` ↔ a new
// std::random_device and two 32-bit draws (libstdc++: the CPU's RDRAND/RDSEED or getentropy/urandom, a
// non-deterministic source). The seed times creating the generator, so the device is made in the call. Pbkdf2 and SHA-256
// (HashData), AES, and the base64 ToBase64Transform (Encode) are left out: the C++ standard library has
// no hash, key derivation, cipher or base64 codec.
#include "perflab.hpp"

#include <cstdint>
#include <cstring>
#include <random>

PERFLAB_BENCH(GetBytes, perflab::category("crypto"), perflab::category("quick"), perflab::meta("seed", "000"),
              perflab::meta("section", "Cryptography"),
              perflab::meta("fidelity", "partial: std::random_device (C++ std has no cryptographic generator; "
                                        "libstdc++ draws from RDRAND or getentropy)")) {
    std::random_device rng;
    unsigned char bytes[8];
    uint32_t a = rng(), b = rng();
    std::memcpy(bytes, &a, 4);
    std::memcpy(bytes + 4, &b, 4);
    perflab::do_not_optimize(bytes[0]);
    perflab::do_not_optimize(bytes[7]);
}
