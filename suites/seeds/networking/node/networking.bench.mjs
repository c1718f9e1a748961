// Networking experiments of seeds 000 (".NET 6": Networking) and 003 (".NET Core 3.0": Networking),
// ported to node:net, node:dgram, node:http and node:os. Everything stays on 127.0.0.1. Servers run
// on the same event loop as the client (Node's model: one thread, non-blocking sockets), where the
// Python port uses threads.
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { bench, group } from 'perflab';

const LOOPBACK = '127.0.0.1';
const meta = (seed, section) => ({ seed, section });

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => { server.off('error', reject); resolve(server.address().port); });
  });
}

const closeServer = (server) => new Promise((resolve) => server.close(() => resolve()));

// -- ConnectAcceptAsync (000) ---------------------------------------------------------------------
// A loopback listener; connect a client and accept it, 100 times per call (seed: 1000), ops = 100.

const CONNECTS = 1000;

function connectOnce(server, port) {
  return new Promise((resolve, reject) => {
    let accepted = null;
    let pending = 2;
    const client = net.connect(port, LOOPBACK, () => done());
    const done = () => {
      if (--pending > 0) return;
      accepted.destroy();
      client.destroy();
      resolve();
    };
    client.once('error', reject);
    server.once('connection', (socket) => { accepted = socket; done(); });
  });
}

bench('ConnectAcceptAsync', async () => {
  const server = net.createServer();
  const port = await listen(server);
  try {
    for (let i = 0; i < CONNECTS; i++) await connectOnce(server, port);
  } finally {
    await closeServer(server);
  }
}, { ops: CONNECTS, categories: ['networking'], meta: { ...meta('000', 'Networking'), fidelity: 'faithful' } });

// -- ReceiveSendAsync (000) -----------------------------------------------------------------------
// Two UDP sockets on loopback; 10 000 times a receive is made pending (a promise the client's
// 'message' listener resolves), the server sends one byte to the client, and the receive is awaited;
// ops = 10 000, as the seed's OperationsPerInvoke.

const DATAGRAMS = 10000;

const bindUdp = () => new Promise((resolve, reject) => {
  const s = dgram.createSocket('udp4');
  s.once('error', reject);
  s.bind(0, LOOPBACK, () => resolve(s));
});

bench('ReceiveSendAsync', async (s) => {
  for (let i = 0; i < DATAGRAMS; i++) {
    const received = new Promise((resolve) => { s.next = resolve; });
    s.server.send(s.buffer, s.clientPort, LOOPBACK);
    await received;
  }
}, {
  setup: async () => {
    const [client, server] = await Promise.all([bindUdp(), bindUdp()]);
    const s = { client, server, clientPort: client.address().port, buffer: Buffer.alloc(1), next: null };
    client.on('message', (msg) => s.next(msg));
    return s;
  },
  teardown: ({ client, server }) => { client.close(); server.close(); },
  ops: DATAGRAMS, categories: ['networking'], meta: { ...meta('000', 'Networking'), fidelity: 'faithful' },
});

// -- TCP PingPong (000) ---------------------------------------------------------------------------
// A connected loopback TCP pair (TCP_NODELAY) with an echo server: 1000 one-byte round trips per
// call. (No seed method of this exact shape: the sockets' send/receive path of 000's Networking.)

const PINGS = 1000;

bench('PingPong', async (s) => {
  for (let i = 0; i < PINGS; i++) {
    const echoed = new Promise((resolve) => { s.next = resolve; });
    s.client.write(s.byte);
    await echoed;
  }
}, {
  setup: async () => {
    const server = net.createServer((socket) => {
      socket.setNoDelay(true);
      socket.on('data', (d) => socket.write(d));
      socket.on('error', () => {});
    });
    const port = await listen(server);
    const client = await new Promise((resolve, reject) => {
      const c = net.connect(port, LOOPBACK, () => resolve(c));
      c.once('error', reject);
    });
    client.setNoDelay(true);
    const s = { server, client, byte: Buffer.from('x'), next: null };
    client.on('data', (d) => s.next(d));
    return s;
  },
  teardown: async ({ server, client }) => {
    client.destroy();
    await closeServer(server);
  },
  ops: PINGS, categories: ['networking'], meta: { extra: true, related: '000 · Networking' },
});

// -- HttpDownload (003) ---------------------------------------------------------------------------
// A 10 MB response from an http.Server on 127.0.0.1, read through a kept-alive http.Agent (the
// seed's persistent HttpClient), its chunks counted and dropped (the seed copies to Stream.Null).

const BODY = Buffer.alloc(10 * 1024 * 1024);

group('Http', {
  setup: async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Length': BODY.length });
      res.end(BODY);
    });
    // Node's server drops a connection idle for 5 s (keepAliveTimeout), and an interleaved run
    // leaves this process idle for longer while the other runtime measures its round: the next
    // request then raced the close and failed with ECONNRESET (node18, a main job's pass 2). The
    // seed's Kestrel keeps a connection 130 s; here it is kept for the process's life.
    server.keepAliveTimeout = 0;
    const port = await listen(server);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    return { server, port, agent };
  },
  teardown: async ({ server, agent }) => {
    agent.destroy();
    server.closeAllConnections?.();
    await closeServer(server);
  },
}, () => {
  bench('HttpDownload', ({ port, agent }) => new Promise((resolve, reject) => {
    http.get({ host: LOOPBACK, port, path: '/', agent }, (res) => {
      let total = 0;
      res.on('data', (chunk) => { total += chunk.length; });
      res.on('end', () => resolve(total));
      res.on('error', reject);
    }).on('error', reject);
  }), { categories: ['networking', 'quick'], meta: { ...meta('003', 'Networking'), fidelity: 'faithful' } });
});

// -- Dns.GetHostName, IPAddress.HostToNetworkOrder (003) ------------------------------------------

bench('GetHostName', () => os.hostname(), { categories: ['networking'], meta: { ...meta('003', 'Networking'), fidelity: 'faithful' } });

// IPAddress.HostToNetworkOrder(int) ↔ a DataView: store in host order, read back big-endian (Node
// has no htonl; DataView is how JavaScript reorders bytes, and V8 compiles it to a byte swap). The
// input changes every call (a counter), or V8 would compute the constant once, outside the loop.
const HOST_LE = os.endianness() === 'LE';

bench('HostToNetworkOrder', (s) => {
  s.view.setUint32(0, (s.x = (s.x + 1) | 0), HOST_LE);
  return s.view.getUint32(0, false);
}, {
  setup: () => ({ view: new DataView(new ArrayBuffer(4)), x: 0x12345678 }),
  categories: ['networking'], meta: { ...meta('003', 'Networking'), fidelity: 'partial: no htonl in Node; a DataView '
    + 'store and big-endian load of a 32-bit value (the seed swaps a long; a 64-bit BigInt would allocate)' },
});
