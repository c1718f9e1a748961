//! Networking experiments of seeds 000 (".NET 6": Networking) and 003 (".NET Core 3.0": Networking),
//! ported to std::net (TcpListener, TcpStream, UdpSocket). Everything stays on 127.0.0.1.
//! std has no HTTP: HttpDownload uses a minimal hand-written HTTP/1.1 server and client (one
//! kept-alive connection, Content-Length framing). Left out: GetHostName (std has no
//! gethostname).
use perflab::{black_box, Bencher, Registry};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, UdpSocket};
use std::thread;

const LOOPBACK: &str = "127.0.0.1:0";
const CONNECTS: u64 = 1000;

/// A loopback listener; connect a client and accept it, 1000 times per call as in the seed.
fn connect_accept() -> u64 {
    let listener = TcpListener::bind(LOOPBACK).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut n = 0;
    for _ in 0..CONNECTS {
        let client = TcpStream::connect(addr).unwrap();
        let (server, _) = listener.accept().unwrap();
        drop(server);
        drop(client);
        n += 1;
    }
    n
}

/// Two UDP sockets on loopback; 10 000 one-byte datagrams sent and received per call, as the seed.
const DATAGRAMS: u64 = 10_000; // per call, as the seed's OperationsPerInvoke

fn receive_send(b: &mut Bencher) {
    let client = UdpSocket::bind(LOOPBACK).unwrap();
    let server = UdpSocket::bind(LOOPBACK).unwrap();
    let client_addr = client.local_addr().unwrap();
    let mut buf = [0u8; 1];
    b.iter(move || {
        let mut total = 0;
        for _ in 0..DATAGRAMS {
            server.send_to(&buf, client_addr).unwrap();
            total += client.recv(&mut buf).unwrap();
        }
        total
    });
}

/// A connected loopback TCP pair with an echo thread: 1000 one-byte round trips per call.
/// (No seed method of this exact shape: the sockets' send/receive path of 000's Networking section.)
fn tcp_ping_pong(b: &mut Bencher) {
    let listener = TcpListener::bind(LOOPBACK).unwrap();
    let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    client.set_nodelay(true).unwrap();
    let (mut server, _) = listener.accept().unwrap();
    server.set_nodelay(true).unwrap();
    drop(listener);
    let echo = thread::spawn(move || {
        let mut byte = [0u8; 1];
        while let Ok(1) = server.read(&mut byte) {
            if server.write_all(&byte).is_err() {
                return;
            }
        }
    });
    let shutdown = client.try_clone().unwrap();
    b.iter(move || {
        let mut byte = [b'x'; 1];
        for _ in 0..1000 {
            client.write_all(&byte).unwrap();
            client.read_exact(&mut byte).unwrap();
        }
        byte[0]
    });
    b.teardown(move || {
        let _ = shutdown.shutdown(Shutdown::Both);
        let _ = echo.join();
    });
}

const BODY_LEN: usize = 10 * 1024 * 1024;

/// Serve one kept-alive connection: for every request (headers up to the empty line), a 200 with
/// a Content-Length of 10 MB and the body.
fn serve(stream: TcpStream) {
    let body = vec![0u8; BODY_LEN];
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\n\r\n", BODY_LEN);
    let mut out = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    loop {
        // the request line and headers
        let mut got_request = false;
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" || line == "\n" {
                break;
            }
            got_request = true;
        }
        if !got_request {
            continue;
        }
        if out.write_all(head.as_bytes()).and_then(|_| out.write_all(&body)).is_err() {
            return;
        }
    }
}

/// A keep-alive HTTP/1.1 client on one connection: GET, parse the status line and headers, then
/// read Content-Length bytes of body into a reused 64 KiB buffer (the seed copies to Stream.Null).
struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    line: String,
    buf: Vec<u8>,
}

impl Client {
    fn get(&mut self, request: &[u8]) -> usize {
        self.writer.write_all(request).unwrap();
        self.line.clear();
        self.reader.read_line(&mut self.line).unwrap();
        assert!(self.line.starts_with("HTTP/1.1 200"), "bad status line {:?}", self.line);
        let mut length = None;
        loop {
            self.line.clear();
            self.reader.read_line(&mut self.line).unwrap();
            let l = self.line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((name, value)) = l.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = Some(value.trim().parse::<usize>().unwrap());
                }
            }
        }
        let length = length.expect("no Content-Length");
        let mut total = 0;
        while total < length {
            let want = (length - total).min(self.buf.len());
            let n = self.reader.read(&mut self.buf[..want]).unwrap();
            assert!(n > 0, "connection closed after {} of {} bytes", total, length);
            total += n;
        }
        total
    }
}

/// A 10 MB response from a hand-written HTTP/1.1 server on 127.0.0.1 in a thread, read through
/// one kept-alive connection.
fn http_download(b: &mut Bencher) {
    let listener = TcpListener::bind(LOOPBACK).unwrap();
    let addr = listener.local_addr().unwrap();
    let server = thread::spawn(move || {
        if let Ok((s, _)) = listener.accept() {
            let _ = s.set_nodelay(true);
            serve(s);
        }
    });
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_nodelay(true).unwrap();
    let writer = stream.try_clone().unwrap();
    let shutdown = stream.try_clone().unwrap();
    let request = format!("GET / HTTP/1.1\r\nHost: {}\r\nAccept: */*\r\n\r\n", addr).into_bytes();
    let mut client = Client { reader: BufReader::new(stream), writer, line: String::new(), buf: vec![0u8; 65536] };
    b.iter(move || client.get(&request));
    b.teardown(move || {
        let _ = shutdown.shutdown(Shutdown::Both);
        let _ = server.join();
    });
}

/// IPAddress.HostToNetworkOrder(long) ↔ `i64::to_be`, of the seed's value.
fn host_to_network_order() -> i64 {
    black_box(1_234_567_890_123_456_789i64).to_be()
}

pub fn register(r: &mut Registry) {
    r.func("ConnectAcceptAsync", connect_accept)
        .ops(CONNECTS)
        .category("networking")
        .category("quick")
        .meta("seed", "000")
        .meta("section", "Networking")
        .meta("fidelity", "partial: blocking std sockets (std has no async I/O), where the seed awaits ConnectAsync/AcceptAsync");
    r.bench("ReceiveSendAsync", receive_send)
        .ops(DATAGRAMS)
        .group("Udp")
        .category("networking")
        .meta("seed", "000")
        .meta("section", "Networking")
        .meta("fidelity", "partial: std has no async I/O; a blocking send_to, then a recv that finds the datagram queued, where the seed's ReceiveFromAsync is pending and completed by the send");
    r.bench("PingPong", tcp_ping_pong)
        .ops(1000)
        .group("TcpPingPong")
        .category("networking")
        .meta("extra", true) // not the seed's PingPong (256 websocket connections)
        .meta("related", "000 · Networking");
    r.bench("HttpDownload", http_download)
        .group("Http")
        .category("networking")
        .category("quick")
        .meta("seed", "003")
        .meta("section", "Networking")
        .meta("fidelity", "different: std has no HTTP client; a hand-written HTTP/1.1 client and server over TcpStream stand for HttpClient");
    r.func("HostToNetworkOrder", host_to_network_order)
        .category("networking")
        .meta("seed", "003")
        .meta("section", "Networking")
        .meta("fidelity", "faithful");
}
