// Seed 002 "File IO improvements in .NET 6", ported to C++17's <fstream> and POSIX file APIs.
//
// Every benchmark is named after the seed's method and keeps its workload and parameters:
// the seed's (fileSize, userBufferSize) rows (GRID below). The seed's FileStream with its
// 4096-byte buffer ↔ std::ifstream/std::ofstream whose std::filebuf is given a 4096-byte buffer
// (pubsetbuf before open); the seed's `*_NoBuffering` (bufferSize 1) ↔ an unbuffered filebuf
// (pubsetbuf(nullptr, 0): libstdc++ then reads/writes the user buffer with one system call).
// "Async" forms run each read/write as a blocking call on a pool thread and wait for its std::future
// (what .NET does on Unix). RandomAccess ↔ pread/pwrite on one descriptor; Scatter/Gather ↔ pwrite vs
// pwritev; Preallocation ↔ posix_fallocate. The 100 MiB / 100 MB cases are in category "large" only.
// Files live in a temporary folder made by each case's setup and removed by its teardown.
#include "perflab.hpp"
#include "../../common/cpp/seed_executor.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace {

constexpr long long KiB = 1024;
constexpr long long MiB = 1024 * 1024;
constexpr long long FOUR_KiB = 4096;
constexpr long long GATHER_BUFFER = 16000;

struct Fixture {
    std::string dir, src, dst;
    std::vector<char> buf;                   // the user buffer (userBufferSize bytes)
    std::vector<char> stream_buf;            // the stream's own buffer (4096 bytes)
    std::unique_ptr<Executor> pool;          // for the Async forms
};
Fixture F;

[[noreturn]] void fail(const std::string& what) { throw std::system_error(errno, std::generic_category(), what); }

long long param_or(const perflab::State& s, const char* name, long long fallback) {
    for (size_t i = 0; i < s.names.size(); ++i)
        if (s.names[i] == name) return s.ints[i];
    return fallback;
}

void setup(perflab::State& s) {
    long long fileSize = param_or(s, "fileSize", MiB);  // GetLength reads a 1 MiB file
    long long userBufferSize = param_or(s, "userBufferSize", FOUR_KiB);
    std::string tmpl = (std::filesystem::temp_directory_path() / "perflab-seed002-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) fail("mkdtemp");
    F.dir = tmpl;
    F.src = F.dir + "/source.bin";
    F.dst = F.dir + "/destination.bin";
    F.buf.assign(size_t(userBufferSize), 0);
    F.stream_buf.assign(size_t(FOUR_KiB), 0);
    if (fileSize > 0) {
        std::vector<char> chunk(static_cast<size_t>(MiB));
        for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = char(i & 0xFF);
        std::ofstream out(F.src, std::ios::binary);
        for (long long left = fileSize; left > 0; left -= MiB)
            out.write(chunk.data(), std::streamsize(left < MiB ? left : MiB));
        out.close();
        if (!out) fail("writing " + F.src);
    }
}

void setup_async(perflab::State& s) {
    setup(s);
    F.pool = std::make_unique<Executor>(1);
}

void teardown(perflab::State&) {
    F.pool.reset();
    std::error_code ec;
    if (!F.dir.empty()) std::filesystem::remove_all(F.dir, ec);
    F.dir.clear();
}

// The stream buffer: `buffering` bytes (4096) or none (0). Must precede open().
template <class Stream>
void open_stream(Stream& s, const std::string& path, std::ios::openmode mode, long long buffering) {
    if (buffering > 0) s.rdbuf()->pubsetbuf(F.stream_buf.data(), std::streamsize(buffering));
    else s.rdbuf()->pubsetbuf(nullptr, 0);
    s.open(path, mode | std::ios::binary);
    if (!s.is_open()) fail("opening " + path);
}

long long read_all(long long fileSize, long long buffering) {
    std::ifstream in;
    open_stream(in, F.src, std::ios::in, buffering);
    char* buf = F.buf.data();
    std::streamsize n = std::streamsize(F.buf.size());
    long long read = 0;
    while (read < fileSize) {
        in.read(buf, n);
        std::streamsize got = in.gcount();
        if (got <= 0) break;
        read += got;
    }
    return read;
}

void write_all(long long fileSize, long long userBufferSize, long long buffering) {
    std::ofstream out;
    open_stream(out, F.dst, std::ios::out | std::ios::trunc, buffering);
    const char* buf = F.buf.data();
    for (long long i = 0; i < fileSize / userBufferSize; ++i) out.write(buf, std::streamsize(userBufferSize));
    out.close();
    if (!out) fail("writing " + F.dst);
}

long long read_all_async(long long fileSize, long long buffering) {
    std::ifstream in;
    open_stream(in, F.src, std::ios::in, buffering);
    char* buf = F.buf.data();
    std::streamsize n = std::streamsize(F.buf.size());
    long long read = 0;
    while (read < fileSize) {
        std::streamsize got = F.pool->submit([&] {
            in.read(buf, n);
            return in.gcount();
        }).get();
        if (got <= 0) break;
        read += got;
    }
    return read;
}

void write_all_async(long long fileSize, long long userBufferSize, long long buffering) {
    std::ofstream out;
    open_stream(out, F.dst, std::ios::out | std::ios::trunc, buffering);
    const char* buf = F.buf.data();
    for (long long i = 0; i < fileSize / userBufferSize; ++i)
        F.pool->submit([&] { out.write(buf, std::streamsize(userBufferSize)); }).get();
    out.close();
    if (!out) fail("writing " + F.dst);
}

// `threads` threads each handle an interleaved share of the blocks, all on ONE descriptor, with
// offset-based calls (pread/pwrite) that never touch the shared file offset.
void positional(long long fileSize, long long userBufferSize, long long threads, bool write) {
    int fd = write ? ::open(F.dst.c_str(), O_RDWR | O_CREAT, 0600) : ::open(F.src.c_str(), O_RDONLY);
    if (fd < 0) fail("open");
    long long blocks = fileSize / userBufferSize;
    auto work = [&](long long start) {
        std::vector<char> data(static_cast<size_t>(userBufferSize));
        for (long long b = start; b < blocks; b += threads) {
            ssize_t n = write ? ::pwrite(fd, data.data(), data.size(), off_t(b * userBufferSize))
                              : ::pread(fd, data.data(), data.size(), off_t(b * userBufferSize));
            if (n != ssize_t(userBufferSize)) fail(write ? "pwrite" : "pread");
        }
    };
    if (threads == 1) {
        work(0);
    } else {
        std::vector<std::thread> ts;
        for (long long i = 0; i < threads; ++i) ts.emplace_back(work, i);
        for (auto& t : ts) t.join();
    }
    ::close(fd);
}

int open_create() {
    int fd = ::open(F.dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) fail("open " + F.dst);
    return fd;
}

const std::vector<char>& gather_buffer() {
    static const std::vector<char> buf(size_t(GATHER_BUFFER), 0);
    return buf;
}

void gather(long long total, int buffers) {
    const char* buf = gather_buffer().data();
    int fd = open_create();
    off_t written = 0;
    if (buffers == 1) {
        for (long long i = 0; i < total / GATHER_BUFFER; ++i) {
            if (::pwrite(fd, buf, size_t(GATHER_BUFFER), written) != GATHER_BUFFER) fail("pwrite");
            written += GATHER_BUFFER;
        }
    } else {
        std::vector<iovec> iov(size_t(buffers), iovec{const_cast<char*>(buf), size_t(GATHER_BUFFER)});
        long long step = GATHER_BUFFER * buffers;
        for (long long i = 0; i < total / step; ++i) {
            if (::pwritev(fd, iov.data(), buffers, written) != step) fail("pwritev");
            written += step;
        }
    }
    ::close(fd);
    ::unlink(F.dst.c_str());  // FileOptions.DeleteOnClose
}

void prealloc(long long total, bool specify) {
    const char* buf = gather_buffer().data();
    int fd = open_create();
    if (specify) {
        int rc = ::posix_fallocate(fd, 0, off_t(total));
        if (rc != 0) {
            errno = rc;
            fail("posix_fallocate");
        }
    }
    off_t written = 0;
    for (long long i = 0; i < total / GATHER_BUFFER; ++i) {
        if (::pwrite(fd, buf, size_t(GATHER_BUFFER), written) != GATHER_BUFFER) fail("pwrite");
        written += GATHER_BUFFER;
    }
    ::close(fd);
    ::unlink(F.dst.c_str());
}

}  // namespace

#define SEED002(section) perflab::meta("seed", "002"), perflab::meta("section", section)
// How faithful a port is (suites/seeds/README.md, "Fidelity"); an extra is not a method of the seed, so it has no
// seed tags and no claim of the seed is checked on it.
#define FAITHFUL perflab::meta("fidelity", "faithful")
#define OWN_POOL perflab::meta("fidelity", "partial: C++ std has no async file API; each call runs on the port's own " \
                                           "pool thread (seed_executor.hpp)")
#define SMALL_FILE perflab::meta("fidelity", "partial: 10 MB instead of the seed's 100 MB (same 16000-byte writes; " \
                                             "the 100 MB case is in `large`)")
#define EXTRA002(section) perflab::meta("extra", true), perflab::meta("related", "002 · " section)
#define FIXTURE perflab::setup(setup), perflab::teardown(teardown)
#define FIXTURE_ASYNC perflab::setup(setup_async), perflab::teardown(teardown)
// The seed's rows (its result tables; it does not show SyncArguments/AsyncArguments): 1 MiB with a 512- or
// 4096-byte user buffer, 16384 for the unbuffered forms, and for WriteAsync also 1 KiB x 1 KiB.
#define GRID perflab::param("fileSize", {MiB}), perflab::param("userBufferSize", {512, 4096})
#define GRID_NOBUFFERING perflab::param("fileSize", {MiB}), perflab::param("userBufferSize", {16384})

// -- Seek/Position ---------------------------------------------------------------------------------

// Open the 1 KiB file and seek to every offset from the beginning (seed: FileStream.Seek).
PERFLAB_BENCH(SeekForward, perflab::param("fileSize", {KiB}), perflab::param("buffering", {FOUR_KiB, 0}),
              perflab::category("file_io"), perflab::category("quick"), FIXTURE, SEED002("Seek/Position"), FAITHFUL) {
    std::ifstream in;
    open_stream(in, F.src, std::ios::in, state.range(1));
    long long fileSize = state.range(0);
    for (long long offset = 0; offset < fileSize; ++offset) in.seekg(offset, std::ios::beg);
    if (!in) fail("seekg");
}

// Seek to every offset counted from the end (SeekOrigin.End).
PERFLAB_BENCH(SeekBackward, perflab::param("fileSize", {KiB}), perflab::param("buffering", {FOUR_KiB, 0}),
              perflab::category("file_io"), FIXTURE, SEED002("Seek/Position"), FAITHFUL) {
    std::ifstream in;
    open_stream(in, F.src, std::ios::in, state.range(1));
    long long fileSize = state.range(0);
    for (long long offset = -1; offset >= -fileSize; --offset) in.seekg(offset, std::ios::end);
    if (!in) fail("seekg");
}

// -- Length ----------------------------------------------------------------------------------------

// Open the file, then ask for its length 1024 times (ops = 1024): fstat, or seekg(0, end) + restore.
PERFLAB_BENCH(GetLength, perflab::param("how", {"fstat", "seek_end"}), perflab::ops(KiB),
              perflab::category("file_io"), FIXTURE, SEED002("Length"),
              perflab::meta("fidelity", "partial: how=fstat/seek_end replaces the seed's FileShare axis (nothing caches the length)")) {
    long long length = 0;
    if (state.param("how") == "fstat") {
        int fd = ::open(F.src.c_str(), O_RDONLY);
        if (fd < 0) fail("open");
        struct stat st;
        for (long long i = 0; i < KiB; ++i) {
            ::fstat(fd, &st);
            length = st.st_size;
        }
        ::close(fd);
    } else {
        std::ifstream in;
        open_stream(in, F.src, std::ios::in, FOUR_KiB);
        for (long long i = 0; i < KiB; ++i) {
            std::streampos pos = in.tellg();
            in.seekg(0, std::ios::end);
            length = in.tellg();
            in.seekg(pos);
        }
    }
    perflab::do_not_optimize(length);
}

// -- Read & Write (sync) ---------------------------------------------------------------------------

// Read the whole file with a user buffer through a 4 KiB stream buffer.
PERFLAB_BENCH(Read, GRID, perflab::category("file_io"), FIXTURE, SEED002("Read & Write"), FAITHFUL) {
    perflab::do_not_optimize(read_all(state.range(0), FOUR_KiB));
}
// As Read, unbuffered (one read(2) per user buffer).
PERFLAB_BENCH(Read_NoBuffering, GRID, perflab::category("file_io"), FIXTURE, EXTRA002("Read & Write")) {
    perflab::do_not_optimize(read_all(state.range(0), 0));
}
// Create the file and write it with fileSize/userBufferSize writes through a 4 KiB stream buffer.
PERFLAB_BENCH(Write, GRID, perflab::category("file_io"), FIXTURE, SEED002("Read & Write"), FAITHFUL) {
    write_all(state.range(0), state.range(1), FOUR_KiB);
}
// As Write, unbuffered (one write(2) per user buffer).
PERFLAB_BENCH(Write_NoBuffering, GRID, perflab::category("file_io"), FIXTURE, EXTRA002("Read & Write")) {
    write_all(state.range(0), state.range(1), 0);
}

// -- ReadAsync / WriteAsync ------------------------------------------------------------------------

// Read the whole file, each read run on a pool thread and awaited through its std::future.
PERFLAB_BENCH(ReadAsync, GRID, perflab::category("file_io"), FIXTURE_ASYNC, SEED002("ReadAsync"), OWN_POOL) {
    perflab::do_not_optimize(read_all_async(state.range(0), FOUR_KiB));
}
PERFLAB_BENCH(ReadAsync_NoBuffering, GRID_NOBUFFERING, perflab::category("file_io"), FIXTURE_ASYNC, SEED002("ReadAsync"), OWN_POOL) {
    perflab::do_not_optimize(read_all_async(state.range(0), 0));
}
// Write the whole file, each write run on a pool thread and awaited through its std::future.
PERFLAB_BENCH(WriteAsync, GRID, perflab::category("file_io"), FIXTURE_ASYNC, SEED002("WriteAsync"), OWN_POOL) {
    write_all_async(state.range(0), state.range(1), FOUR_KiB);
}
PERFLAB_BENCH(WriteAsync_NoBuffering, GRID_NOBUFFERING, perflab::category("file_io"), FIXTURE_ASYNC, SEED002("WriteAsync"), OWN_POOL) {
    write_all_async(state.range(0), state.range(1), 0);
}
// The seed's one 1 KiB row: a single 1 KiB write per call.
PERFLAB_BENCH(WriteAsync_small, perflab::name("WriteAsync"), perflab::param("fileSize", {KiB}),
              perflab::param("userBufferSize", {KiB}), perflab::group("bench_file_io_small"), perflab::category("file_io"),
              FIXTURE_ASYNC, SEED002("WriteAsync"), OWN_POOL) {
    write_all_async(state.range(0), state.range(1), FOUR_KiB);
}

// The seed's 100 MiB rows: 4096-byte user buffer buffered, 16384 unbuffered. Category "large" only.
#define LARGE_4K perflab::param("fileSize", {100 * MiB}), perflab::param("userBufferSize", {4096})
#define LARGE_16K perflab::param("fileSize", {100 * MiB}), perflab::param("userBufferSize", {16384})
#define GROUP_LARGE perflab::group("bench_file_io_large"), perflab::category("large")

PERFLAB_BENCH(Read_large, perflab::name("Read"), LARGE_4K, GROUP_LARGE, FIXTURE, SEED002("Read & Write"),
              FAITHFUL) {
    perflab::do_not_optimize(read_all(state.range(0), FOUR_KiB));
}
PERFLAB_BENCH(Read_NoBuffering_large, perflab::name("Read_NoBuffering"), LARGE_16K, GROUP_LARGE, FIXTURE,
              EXTRA002("Read & Write")) {
    perflab::do_not_optimize(read_all(state.range(0), 0));
}
PERFLAB_BENCH(Write_large, perflab::name("Write"), LARGE_4K, GROUP_LARGE, FIXTURE, SEED002("Read & Write"),
              FAITHFUL) {
    write_all(state.range(0), state.range(1), FOUR_KiB);
}
PERFLAB_BENCH(Write_NoBuffering_large, perflab::name("Write_NoBuffering"), LARGE_16K, GROUP_LARGE, FIXTURE,
              EXTRA002("Read & Write")) {
    write_all(state.range(0), state.range(1), 0);
}
PERFLAB_BENCH(ReadAsync_large, perflab::name("ReadAsync"), LARGE_4K, GROUP_LARGE, FIXTURE_ASYNC, SEED002("ReadAsync"), OWN_POOL) {
    perflab::do_not_optimize(read_all_async(state.range(0), FOUR_KiB));
}
PERFLAB_BENCH(ReadAsync_NoBuffering_large, perflab::name("ReadAsync_NoBuffering"), LARGE_16K, GROUP_LARGE,
              FIXTURE_ASYNC, SEED002("ReadAsync"), OWN_POOL) {
    perflab::do_not_optimize(read_all_async(state.range(0), 0));
}
PERFLAB_BENCH(WriteAsync_large, perflab::name("WriteAsync"), LARGE_4K, GROUP_LARGE, FIXTURE_ASYNC,
              SEED002("WriteAsync"), OWN_POOL) {
    write_all_async(state.range(0), state.range(1), FOUR_KiB);
}
PERFLAB_BENCH(WriteAsync_NoBuffering_large, perflab::name("WriteAsync_NoBuffering"), LARGE_16K, GROUP_LARGE,
              FIXTURE_ASYNC, SEED002("WriteAsync"), OWN_POOL) {
    write_all_async(state.range(0), state.range(1), 0);
}

// -- RandomAccess (thread-safe, offset-based) ------------------------------------------------------

// Read a 1 MiB file with pread at explicit offsets, from 1 or 4 threads sharing one descriptor.
PERFLAB_BENCH(RandomAccessRead, perflab::param("fileSize", {MiB}), perflab::param("userBufferSize", {4096}),
              perflab::param("threads", {1, 4}), perflab::category("file_io"), FIXTURE, EXTRA002("RandomAccess")) {
    positional(state.range(0), state.range(1), state.range(2), false);
}
// The seed's ThreadSafeAsync: buffers written at explicit offsets with pwrite (1 or 4 threads).
PERFLAB_BENCH(RandomAccessWrite, perflab::param("fileSize", {MiB}), perflab::param("userBufferSize", {4096}),
              perflab::param("threads", {1, 4}), perflab::category("file_io"), FIXTURE, EXTRA002("RandomAccess")) {
    positional(state.range(0), state.range(1), state.range(2), true);
}

// -- Scatter/Gather --------------------------------------------------------------------------------

constexpr long long FILE_SIZE = 100000000;

// 100 MB written with one pwrite per 16000-byte buffer.
PERFLAB_BENCH(GatherWrite_large, perflab::name("Write"), perflab::param("FileSize", {FILE_SIZE}),
              perflab::group("bench_file_io_gather_large"), perflab::category("large"), FIXTURE,
              SEED002("Scatter/Gather"), FAITHFUL) {
    gather(state.range(0), 1);
}
// 100 MB written with one pwritev of 4 × 16000-byte buffers per call.
PERFLAB_BENCH(WriteGather_large, perflab::name("WriteGather"), perflab::param("FileSize", {FILE_SIZE}),
              perflab::group("bench_file_io_gather_large"), perflab::category("large"), FIXTURE,
              SEED002("Scatter/Gather"), FAITHFUL) {
    gather(state.range(0), 4);
}
// A 10 MB version of the same pair for quick runs.
PERFLAB_BENCH(GatherWrite, perflab::name("Write"), perflab::param("FileSize", {FILE_SIZE / 10}),
              perflab::group("bench_file_io_gather"), perflab::category("file_io"), perflab::category("quick"),
              FIXTURE, SEED002("Scatter/Gather"), SMALL_FILE) {
    gather(state.range(0), 1);
}
PERFLAB_BENCH(WriteGather, perflab::param("FileSize", {FILE_SIZE / 10}), perflab::group("bench_file_io_gather"),
              perflab::category("file_io"), perflab::category("quick"), FIXTURE, SEED002("Scatter/Gather"),
              SMALL_FILE) {
    gather(state.range(0), 4);
}

// -- Preallocation ---------------------------------------------------------------------------------

// Write a 100 MB file with 16000-byte pwrite calls, with or without posix_fallocate first.
PERFLAB_BENCH(PreallocationSize_large, perflab::name("PreallocationSize"),
              perflab::param("specifyPreallocationSize", {"False", "True"}), perflab::group("bench_file_io_large"),
              perflab::category("large"), FIXTURE, SEED002("Preallocation"), FAITHFUL) {
    prealloc(FILE_SIZE, state.param("specifyPreallocationSize") == "True");
}
// The same with a 10 MB file (quick runs).
PERFLAB_BENCH(PreallocationSize, perflab::param("specifyPreallocationSize", {"False", "True"}),
              perflab::category("file_io"), perflab::category("quick"), FIXTURE, SEED002("Preallocation"),
              perflab::meta("file_size", FILE_SIZE / 10), SMALL_FILE) {
    prealloc(FILE_SIZE / 10, state.param("specifyPreallocationSize") == "True");
}
