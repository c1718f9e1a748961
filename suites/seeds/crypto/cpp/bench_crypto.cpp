// Seed 000 (".NET 6": Cryptography), ported to C++17's standard library: only GetBytes has a
// counterpart — RandomNumberGenerator.GetBytes(8) ↔ two 32-bit draws of std::random_device (libstdc++:
// the CPU's RDRAND/RDSEED or getentropy/urandom, a non-deterministic source). Pbkdf2 and SHA-256
// (HashData), AES, and the base64 ToBase64Transform (Encode) are left out: the C++ standard library has
// no hash, key derivation, cipher or base64 codec.
#include "perflab.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>

namespace {
std::unique_ptr<std::random_device> s_rng;
}

PERFLAB_BENCH(GetBytes, perflab::category("crypto"), perflab::category("quick"), perflab::meta("seed", "000"),
              perflab::meta("section", "Cryptography"),
              perflab::setup([](perflab::State&) { s_rng = std::make_unique<std::random_device>(); }),
              perflab::teardown([](perflab::State&) { s_rng.reset(); })) {
    unsigned char bytes[8];
    uint32_t a = (*s_rng)(), b = (*s_rng)();
    std::memcpy(bytes, &a, 4);
    std::memcpy(bytes + 4, &b, 4);
    perflab::do_not_optimize(bytes[0]);
    perflab::do_not_optimize(bytes[7]);
}
