// Networking experiments of seeds 000 (".NET 6": Networking) and 003 (".NET Core 3.0": Networking),
// ported to POSIX sockets (the C++ standard library has no networking). Everything stays on 127.0.0.1.
// HttpDownload uses a minimal hand-written HTTP/1.1 server (a thread) and client (keep-alive), as the
// seed's benchmark does with its raw-socket server: C++ has no HTTP client or server.
#include "perflab.hpp"

#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#define SEED_META(seed, section) perflab::meta("seed", seed), perflab::meta("section", section)

namespace {

[[noreturn]] void fail(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

sockaddr_in loopback(uint16_t port = 0) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

int socket_or_fail(int type) {
    int fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (fd < 0) fail("socket");
    return fd;
}

/// A TCP listener on 127.0.0.1, an ephemeral port.
int listen_loopback(sockaddr_in& bound) {
    int fd = socket_or_fail(SOCK_STREAM);
    sockaddr_in a = loopback();
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) fail("bind");
    if (::listen(fd, 16) != 0) fail("listen");
    socklen_t len = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    return fd;
}

int connect_to(const sockaddr_in& addr) {
    int fd = socket_or_fail(SOCK_STREAM);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) fail("connect");
    return fd;
}

void set_nodelay(int fd) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void send_all(int fd, const char* p, size_t n) {
    while (n > 0) {
        ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0) fail("send");
        p += k;
        n -= size_t(k);
    }
}

constexpr int CONNECTS = 1000;  // as the seed's OperationsPerInvoke

// ---- UDP ---------------------------------------------------------------------------------------------
struct Udp {
    int client = -1, server = -1;
    sockaddr_in client_addr{};
} U;

// ---- TCP ping-pong -------------------------------------------------------------------------------------
struct TcpPingPong {
    int client = -1, server = -1;
    std::thread echo;
};
std::unique_ptr<TcpPingPong> s_tcp;

// ---- HTTP ----------------------------------------------------------------------------------------------
constexpr size_t BODY_SIZE = 10 * 1024 * 1024;

struct Http {
    int listener = -1, conn = -1;
    std::thread server;
    std::vector<char> buf = std::vector<char>(65536);
};
std::unique_ptr<Http> s_http;

// Serves one connection at a time: read a request's headers, answer with 10 MB, until the client closes.
void http_serve(int listener) {
    const std::vector<char> body(BODY_SIZE, 0);
    const std::string headers = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(BODY_SIZE) + "\r\n\r\n";
    for (;;) {
        int c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;  // the listener was shut down
        std::string pending;
        char chunk[4096];
        bool open = true;
        while (open) {
            size_t end;
            while ((end = pending.find("\r\n\r\n")) == std::string::npos) {
                ssize_t n = ::recv(c, chunk, sizeof chunk, 0);
                if (n <= 0) {
                    open = false;
                    break;
                }
                pending.append(chunk, size_t(n));
            }
            if (!open) break;
            pending.erase(0, end + 4);
            try {
                send_all(c, headers.data(), headers.size());
                send_all(c, body.data(), body.size());
            } catch (const std::exception&) {
                open = false;
            }
        }
        ::close(c);
    }
}

// GET / over the kept-alive connection; the body is read into a reused 64 KiB buffer.
size_t http_get(Http& h) {
    static const char request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    send_all(h.conn, request, sizeof request - 1);
    std::string head;
    size_t end;
    char* buf = h.buf.data();
    while ((end = head.find("\r\n\r\n")) == std::string::npos) {
        ssize_t n = ::recv(h.conn, buf, h.buf.size(), 0);
        if (n <= 0) fail("recv (headers)");
        head.append(buf, size_t(n));
    }
    if (head.compare(0, 12, "HTTP/1.1 200") != 0) throw std::runtime_error("unexpected status: " + head.substr(0, 40));
    size_t cl = head.find("Content-Length:");
    if (cl == std::string::npos || cl > end) throw std::runtime_error("no Content-Length");
    size_t length = std::stoul(head.substr(cl + 15, end - cl - 15));
    size_t total = head.size() - (end + 4);  // body bytes that came with the headers
    while (total < length) {
        size_t want = length - total < h.buf.size() ? length - total : h.buf.size();
        ssize_t n = ::recv(h.conn, buf, want, 0);
        if (n <= 0) fail("recv (body)");
        total += size_t(n);
    }
    return total;
}

}  // namespace

// A loopback listener; connect a client and accept it, 100 times per call (seed: 1000).
PERFLAB_BENCH(ConnectAcceptAsync, perflab::ops(CONNECTS), perflab::category("networking"),
              SEED_META("000", "Networking"),
              perflab::meta("fidelity", "partial: C++ std has no sockets; blocking POSIX connect/accept, where the seed awaits its socket library")) {
    sockaddr_in addr{};
    int listener = listen_loopback(addr);
    for (int i = 0; i < CONNECTS; ++i) {
        int client = connect_to(addr);
        int server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (server < 0) fail("accept");
        ::close(server);
        ::close(client);
    }
    ::close(listener);
}

// Two UDP sockets on loopback; 10 000 one-byte datagrams sent and received per call, as the seed.
constexpr int DATAGRAMS = 10000;
PERFLAB_BENCH(ReceiveSendAsync, perflab::ops(DATAGRAMS), perflab::category("networking"), SEED_META("000", "Networking"),
              perflab::meta("fidelity", "partial: C++ std has no sockets; a blocking POSIX sendto, then a recv that finds the datagram queued, where the seed's ReceiveFromAsync is pending and completed by the send"),
              perflab::setup([](perflab::State&) {
                  U.client = socket_or_fail(SOCK_DGRAM);
                  U.server = socket_or_fail(SOCK_DGRAM);
                  sockaddr_in a = loopback();
                  if (::bind(U.client, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) fail("bind");
                  if (::bind(U.server, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) fail("bind");
                  socklen_t len = sizeof U.client_addr;
                  ::getsockname(U.client, reinterpret_cast<sockaddr*>(&U.client_addr), &len);
              }),
              perflab::teardown([](perflab::State&) {
                  ::close(U.client);
                  ::close(U.server);
              })) {
    char buf[1] = {0};
    for (int i = 0; i < DATAGRAMS; ++i) {
        if (::sendto(U.server, buf, 1, 0, reinterpret_cast<const sockaddr*>(&U.client_addr), sizeof U.client_addr) != 1)
            fail("sendto");
        if (::recv(U.client, buf, 1, 0) != 1) fail("recv");
    }
}

// A connected loopback TCP pair with an echo thread: 1000 one-byte round trips per call. (No seed
// method of this exact shape: the sockets' send/receive path of 000's Networking section.)
PERFLAB_BENCH(PingPong, perflab::ops(1000), perflab::category("networking"), perflab::meta("extra", true), perflab::meta("related", "000 · Networking"),
              perflab::setup([](perflab::State&) {
                  s_tcp = std::make_unique<TcpPingPong>();
                  sockaddr_in addr{};
                  int listener = listen_loopback(addr);
                  s_tcp->client = connect_to(addr);
                  s_tcp->server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
                  ::close(listener);
                  if (s_tcp->server < 0) fail("accept");
                  set_nodelay(s_tcp->client);
                  set_nodelay(s_tcp->server);
                  int fd = s_tcp->server;
                  s_tcp->echo = std::thread([fd] {
                      char c;
                      while (::recv(fd, &c, 1, 0) == 1)
                          if (::send(fd, &c, 1, MSG_NOSIGNAL) != 1) return;
                  });
              }),
              perflab::teardown([](perflab::State&) {
                  ::shutdown(s_tcp->client, SHUT_RDWR);
                  s_tcp->echo.join();
                  ::close(s_tcp->client);
                  ::close(s_tcp->server);
                  s_tcp.reset();
              })) {
    int fd = s_tcp->client;
    char c = 'x';
    for (int i = 0; i < 1000; ++i) {
        if (::send(fd, &c, 1, MSG_NOSIGNAL) != 1) fail("send");
        if (::recv(fd, &c, 1, 0) != 1) fail("recv");
    }
}

// A 10 MB response from a minimal HTTP/1.1 server on 127.0.0.1 in a thread, read through a kept-alive
// connection into a reused 64 KiB buffer (the seed copies it to Stream.Null).
PERFLAB_BENCH(HttpDownload, perflab::category("networking"), perflab::category("quick"), SEED_META("003", "Networking"),
              perflab::meta("fidelity", "different: C++ std has no HTTP client; a hand-written HTTP/1.1 client and server stand for HttpClient"),
              perflab::setup([](perflab::State&) {
                  s_http = std::make_unique<Http>();
                  sockaddr_in addr{};
                  s_http->listener = listen_loopback(addr);
                  s_http->server = std::thread(http_serve, s_http->listener);
                  s_http->conn = connect_to(addr);
              }),
              perflab::teardown([](perflab::State&) {
                  ::close(s_http->conn);
                  ::shutdown(s_http->listener, SHUT_RDWR);  // wakes accept()
                  s_http->server.join();
                  ::close(s_http->listener);
                  s_http.reset();
              })) {
    perflab::do_not_optimize(http_get(*s_http));
}

PERFLAB_BENCH(GetHostName, perflab::category("networking"), SEED_META("003", "Networking"),
              perflab::meta("fidelity", "faithful")) {
    char name[256];
    if (::gethostname(name, sizeof name) != 0) fail("gethostname");
    perflab::do_not_optimize(name[0]);
}

// IPAddress.HostToNetworkOrder(long) ↔ htobe64 (<endian.h>; htonl is 32-bit only), of the seed's value.
PERFLAB_BENCH(HostToNetworkOrder, perflab::category("networking"), SEED_META("003", "Networking"),
              perflab::meta("fidelity", "faithful")) {
    uint64_t x = 1234567890123456789ULL;
    perflab::do_not_optimize(x);
    uint64_t y = htobe64(x);
    perflab::do_not_optimize(y);
}
