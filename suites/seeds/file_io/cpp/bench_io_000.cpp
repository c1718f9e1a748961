// Seed 000 (".NET 6": IO), ported to C++17's <fstream>: reading a 10 MB file with a 1 KiB user buffer
// through a stream buffer of 1 (none) or 4096 bytes, synchronously and with every read run on a pool
// thread and awaited through its std::future (the seed's IsAsync axis has no C++ counterpart: the async
// form is ReadAsync), and File.WriteAllText(Async) of 100 000 characters. The seed's BrotliStream
// (Compress) is left out: the C++ standard library has no compression.
#include "perflab.hpp"
#include "../../common/cpp/seed_executor.hpp"

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <vector>

namespace {

struct Fixture {
    std::string dir, path;
    std::vector<char> buf, stream_buf;
    std::ifstream in;
    std::unique_ptr<Executor> pool;
};
Fixture F;
const std::string CONTENTS = [] {
    std::string s(100000, ' ');
    for (size_t i = 0; i < s.size(); ++i) s[i] = char('a' + i % 26);
    return s;
}();

void make_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "perflab-seed000-io-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    F.dir = tmpl;
}

void teardown(perflab::State&) {
    F.pool.reset();
    if (F.in.is_open()) F.in.close();
    std::error_code ec;
    if (!F.dir.empty()) std::filesystem::remove_all(F.dir, ec);
    F.dir.clear();
}

// The stream is opened once per case (GlobalSetup); each call rewinds it and reads to the end.
// BufferSize 1 ↔ an unbuffered filebuf (FileStream disables its buffer for sizes 0 and 1).
void setup_read(perflab::State& s) {
    make_dir();
    F.path = F.dir + "/data.bin";
    std::vector<char> data(10000000);
    std::mt19937 rnd(42);  // new Random(42).NextBytes
    for (char& c : data) c = char(rnd() & 0xFF);
    {
        std::ofstream out(F.path, std::ios::binary);
        out.write(data.data(), std::streamsize(data.size()));
        if (!out) throw std::runtime_error("cannot write " + F.path);
    }
    F.buf.assign(1024, 0);
    long long bufferSize = s.param_int("BufferSize");
    F.in = std::ifstream();
    if (bufferSize > 1) {
        F.stream_buf.assign(size_t(bufferSize), 0);
        F.in.rdbuf()->pubsetbuf(F.stream_buf.data(), std::streamsize(bufferSize));
    } else {
        F.in.rdbuf()->pubsetbuf(nullptr, 0);
    }
    F.in.open(F.path, std::ios::binary);
    if (!F.in.is_open()) throw std::runtime_error("cannot open " + F.path);
    F.pool = std::make_unique<Executor>(1);
}

void setup_text(perflab::State&) {
    make_dir();
    F.path = F.dir + "/text.txt";
    F.pool = std::make_unique<Executor>(1);
}

void write_all_text() {
    std::ofstream out(F.path);
    out << CONTENTS;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + F.path);
}

}  // namespace

#define SEED000_IO perflab::meta("seed", "000"), perflab::meta("section", "IO")
#define OWN_POOL perflab::meta("fidelity", "partial: C++ std has no async file API; each call runs on the port's own " \
                                           "pool thread (seed_executor.hpp)")

PERFLAB_BENCH(Read, perflab::param("BufferSize", {1, 4096}), perflab::category("file_io"),
              perflab::setup(setup_read), perflab::teardown(teardown), SEED000_IO, perflab::meta("fidelity", "faithful")) {
    std::ifstream& in = F.in;
    in.clear();
    in.seekg(0);
    char* buf = F.buf.data();
    long long total = 0;
    while (in.read(buf, 1024) || in.gcount() > 0) total += in.gcount();
    perflab::do_not_optimize(total);
}

PERFLAB_BENCH(ReadAsync, perflab::param("BufferSize", {1, 4096}), perflab::category("file_io"),
              perflab::setup(setup_read), perflab::teardown(teardown), SEED000_IO, OWN_POOL) {
    std::ifstream& in = F.in;
    in.clear();
    in.seekg(0);
    char* buf = F.buf.data();
    long long total = 0;
    for (;;) {
        std::streamsize got = F.pool->submit([&] {
            in.read(buf, 1024);
            return in.gcount();
        }).get();
        if (got <= 0) break;
        total += got;
    }
    perflab::do_not_optimize(total);
}

// Open, write 100 000 characters (UTF-8, here ASCII), close — on a pool thread, awaited via its future.
PERFLAB_BENCH(WriteAllTextAsync, perflab::category("file_io"), perflab::setup(setup_text),
              perflab::teardown(teardown), SEED000_IO, OWN_POOL) {
    F.pool->submit(write_all_text).get();
}

// Not a method of the seed (it times WriteAllTextAsync only): an extra, without seed tags.
PERFLAB_BENCH(WriteAllText, perflab::category("file_io"), perflab::setup(setup_text), perflab::teardown(teardown),
              perflab::meta("extra", true), perflab::meta("related", "000 · IO")) {
    write_all_text();
}
