// Starts worker.js against a tiny host written in JavaScript and drives it over protocol v2
// (shared by protocol.test.js and compat.test.js).
import net from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

const WORKER = fileURLToPath(new URL('../worker.js', import.meta.url));
export const TOKEN = '0123456789abcdef0123456789abcdef';

export async function startWorker() {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const child = spawn(process.execPath, [WORKER], {
    env: { ...process.env, PERFLAB_CONNECT: `127.0.0.1:${server.address().port}`, PERFLAB_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [socket] = await once(server, 'connection');
  server.close();
  socket.setEncoding('utf8');
  let buf = '';
  const waiting = [];
  const lines = [];
  socket.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (waiting.length) waiting.shift()(msg); else lines.push(msg);
    }
  });
  const next = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiting.push(r)));
  let id = 0;
  const request = (type, fields = {}) => {
    socket.write(JSON.stringify({ v: 2, id: ++id, type, ...fields }) + '\n');
    return next();
  };
  const hello = await next();
  return { child, socket, hello, request, raw: (line) => { socket.write(line + '\n'); return next(); } };
}

