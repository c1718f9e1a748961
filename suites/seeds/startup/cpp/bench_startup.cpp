// Startup experiments: seed 000 (".NET 6": Startup — a "Hello, World" app timed from outside) and seed
// 003 (".NET Core 3.0": Process — ProcessStartWait on a no-op program). Ported as scenarios: one
// invocation starts a process with posix_spawn and waits for it with waitpid.
//
// The "runtime" of a C++ program is its compiler, so each case's setup compiles the programs it starts
// with the compiler under test (g++-<major> or clang++-<major>, found on PATH from the __GNUC__ /
// __clang_major__ of this worker; -O2, dynamically linked against libstdc++) into the case's temporary
// folder: the Runtime column then compares the start-up of what each compiler produces.
#include "perflab.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

extern char** environ;

namespace {

struct Fixture {
    std::string dir, hello, nop;
} F;

/// Starts argv[0] (searched on PATH), stdout/stderr to /dev/null unless `quiet` is false, and waits.
int spawn_wait(const std::vector<std::string>& args, bool quiet = true) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (quiet) {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::system_error(rc, std::generic_category(), "posix_spawn " + args[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void run_checked(const std::vector<std::string>& args) {
    int rc = spawn_wait(args);
    if (rc != 0) throw std::runtime_error(args[0] + " exited with status " + std::to_string(rc));
}

std::string compiler_under_test() {
#if defined(__clang__)
    std::vector<std::string> names = {"clang++-" + std::to_string(__clang_major__), "clang++"};
#else
    std::vector<std::string> names = {"g++-" + std::to_string(__GNUC__), "g++"};
#endif
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "/usr/bin:/bin";
    for (auto& n : names) {
        size_t start = 0;
        while (start <= p.size()) {
            size_t colon = p.find(':', start);
            std::string dir = p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
            if (!dir.empty() && ::access((dir + "/" + n).c_str(), X_OK) == 0) return dir + "/" + n;
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
    }
    throw std::runtime_error("the compiler under test (" + names[0] + ") is not on PATH");
}

std::string build(const std::string& name, const std::string& source) {
    std::string src = F.dir + "/" + name + ".cpp", exe = F.dir + "/" + name;
    std::ofstream(src) << source;
    run_checked({compiler_under_test(), "-std=c++17", "-O2", src, "-o", exe});
    return exe;
}

void setup(perflab::State&) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "perflab-seed-startup-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    F.dir = tmpl;
    F.hello = build("hello", "#include <iostream>\nint main() { std::cout << \"Hello, World!\" << std::endl; }\n");
    F.nop = build("nop", "int main() { return 0; }\n");
}

void teardown(perflab::State&) {
    std::error_code ec;
    if (!F.dir.empty()) std::filesystem::remove_all(F.dir, ec);
    F.dir.clear();
}

}  // namespace

// Start the "Hello, World!" program (iostream) built by the compiler under test, and wait for it.
PERFLAB_BENCH(HelloWorld, perflab::category("startup"), perflab::category("quick"), perflab::meta("seed", "000"),
              perflab::meta("section", "Startup"), perflab::meta("scenario", true),
              perflab::meta("fidelity", "faithful"), perflab::setup(setup),
              perflab::teardown(teardown)) {
    run_checked({F.hello});
}

// Process.Start(nop).WaitForExit(): the seed's target is a no-op native program, here /bin/true; the same for
// every compiler, so it measures the start path (posix_spawn + waitpid) alone.
PERFLAB_BENCH(ProcessStartWait, perflab::category("startup"), perflab::meta("seed", "003"),
              perflab::meta("section", "Process"), perflab::meta("fidelity", "faithful")) {
    run_checked({"/bin/true"});
}

// Not the seed's experiment: a no-op program (int main() { return 0; }) built by the compiler under test, so
// both the binary and the start path change with the compiler.
PERFLAB_BENCH(ProcessStartWaitBuiltNop, perflab::category("startup"), perflab::meta("extra", true),
              perflab::meta("related", "003 · Process"), perflab::setup(setup), perflab::teardown(teardown)) {
    run_checked({F.nop});
}
