"""Networking experiments of seeds 000 (".NET 6": Networking) and 003 (".NET Core 3.0": Networking),
ported to socket, http.server and http.client. Everything stays on 127.0.0.1."""
import asyncio
import http.client
import http.server
import socket
import threading

import perflab

LOOPBACK = "127.0.0.1"


def _meta(seed, section, fidelity=None):
    """Seed tags plus how faithful the port is (suites/seeds/README.md, "Fidelity"); no fidelity
    means not audited yet."""
    meta = {"seed": seed, "section": section}
    if fidelity:
        meta["fidelity"] = fidelity
    return meta


EXTRA = {"extra": True, "related": "000 · Networking"}


CONNECTS = 1000


class ConnectAccept:
    """The seed's loop on asyncio: one loopback listener per call, then 1000 times a new client
    socket awaits `sock_connect` and the listener awaits `sock_accept` (ops = 1000, as the seed's
    OperationsPerInvoke)."""

    def setup(self):
        self.loop = asyncio.new_event_loop()

    def teardown(self):
        self.loop.close()

    async def _run(self):
        loop = self.loop
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
            listener.bind((LOOPBACK, 0))
            listener.listen(1)
            listener.setblocking(False)
            addr = listener.getsockname()
            for _ in range(CONNECTS):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
                    client.setblocking(False)
                    await loop.sock_connect(client, addr)
                    server, _ = await loop.sock_accept(listener)
                    server.close()

    @perflab.benchmark(name="ConnectAcceptAsync", ops=CONNECTS, categories=["networking"],
                       meta=_meta("000", "Networking", "faithful"))
    def connect_accept(self):
        self.loop.run_until_complete(self._run())


DATAGRAMS = 10000


class _Receiver(asyncio.DatagramProtocol):
    """The client's end: each datagram completes the receive the loop is awaiting."""

    pending = None

    def datagram_received(self, data, addr):
        self.pending.set_result(data)


class Udp:
    """The seed's loop on asyncio: two UDP endpoints on loopback; 10 000 times a receive is made
    pending (a Future the client's protocol completes), the server sends one byte to the client, and
    the receive is awaited (ops = 10 000, as the seed's OperationsPerInvoke)."""

    def setup(self):
        self.loop = loop = asyncio.new_event_loop()
        self.client, self.receiver = loop.run_until_complete(
            loop.create_datagram_endpoint(_Receiver, local_addr=(LOOPBACK, 0)))
        self.server, _ = loop.run_until_complete(
            loop.create_datagram_endpoint(asyncio.DatagramProtocol, local_addr=(LOOPBACK, 0)))
        self.client_addr = self.client.get_extra_info("sockname")

    def teardown(self):
        self.client.close()
        self.server.close()
        self.loop.run_until_complete(asyncio.sleep(0))  # let the transports finish closing
        self.loop.close()

    async def _run(self):
        loop, receiver, sendto = self.loop, self.receiver, self.server.sendto
        buf, addr = b"\0", self.client_addr
        for _ in range(DATAGRAMS):
            receive = receiver.pending = loop.create_future()  # ReceiveFromAsync, pending
            sendto(buf, addr)  # SendToAsync completes at once for UDP: sendto without waiting
            await receive

    @perflab.benchmark(name="ReceiveSendAsync", ops=DATAGRAMS, categories=["networking"],
                       meta=_meta("000", "Networking", "faithful"))
    def receive_send(self):
        self.loop.run_until_complete(self._run())


class TcpPingPong:
    """A connected loopback TCP pair with an echo thread: 1000 one-byte round trips per call.
    Not the seed's PingPong (256 websocket connections): an extra, without seed tags."""

    def setup(self):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind((LOOPBACK, 0))
        listener.listen(1)
        self.client = socket.create_connection(listener.getsockname())
        self.client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server, _ = listener.accept()
        self.server.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.close()
        self.thread = threading.Thread(target=self._echo, daemon=True)
        self.thread.start()

    def _echo(self):
        s = self.server
        while True:
            data = s.recv(1)
            if not data:
                return
            s.sendall(data)

    def teardown(self):
        self.client.close()
        self.thread.join(5)
        self.server.close()

    @perflab.benchmark(name="PingPong", ops=1000, categories=["networking"], meta=EXTRA)
    def ping_pong(self):
        send, recv = self.client.sendall, self.client.recv
        for _ in range(1000):
            send(b"x")
            recv(1)


BODY = bytes(10 * 1024 * 1024)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the seed's persistent HttpClient

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


class Http:
    """A 10 MB response from an http.server on 127.0.0.1 in a thread, read through a kept-alive
    http.client connection into a reused 64 KiB buffer (the seed copies it to Stream.Null)."""

    def setup(self):
        self.httpd = http.server.ThreadingHTTPServer((LOOPBACK, 0), _Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.conn = http.client.HTTPConnection(LOOPBACK, self.httpd.server_address[1], timeout=30)
        self.buf = bytearray(65536)

    def teardown(self):
        self.conn.close()
        self.httpd.shutdown()
        self.httpd.server_close()

    @perflab.benchmark(name="HttpDownload", categories=["networking", "quick"],
                       meta=_meta("003", "Networking", "faithful"))
    def http_download(self):
        self.conn.request("GET", "/")
        r = self.conn.getresponse()
        total, readinto, buf = 0, r.readinto, self.buf
        while True:
            n = readinto(buf)
            if not n:
                break
            total += n
        return total


@perflab.benchmark(name="GetHostName", categories=["networking"], meta=_meta("003", "Networking", "faithful"))
def get_host_name():
    return socket.gethostname()


@perflab.benchmark(name="HostToNetworkOrder", categories=["networking"], meta=_meta(
    "003", "Networking",
    "partial: socket.htonl swaps a 32-bit int (the stdlib has no 64-bit form); the seed swaps a long"))
def host_to_network_order():
    return socket.htonl(0x12345678)
