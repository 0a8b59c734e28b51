// bridge.mjs — progmux (stdio) behind Streamable HTTP, for the official
// conformance suite, which speaks HTTP only.
//
// POST /mcp carries one JSON-RPC message. The bridge is the transport and
// nothing more: it decides no MCP answer itself.
//
//   - initialize (without a 2026 _meta) starts a progmux of its own for
//     that session (the 2025
//     era), named by the Mcp-Session-Id header from then on; DELETE ends
//     it.
//   - Any other request without a session goes to the one shared progmux
//     (the 2026-07-28 era, stateless). As the HTTP binding asks, the
//     MCP-Protocol-Version header must be there and agree with the
//     request's _meta, and Mcp-Method and Mcp-Name, when sent, with its
//     method and the name, uri or taskId it names (else 400 and -32020,
//     HeaderMismatch), and an error
//     reply is sent with its HTTP status: 404 for -32601, 400 for -32602
//     and -32020..-32022.
//   - Ids are renumbered on the way in (requests from many HTTP clients
//     share one stdin) and put back on the way out; so is a listen
//     stream's subscriptionId. A reply goes back on its request's HTTP
//     response: JSON, or an SSE stream once a notification belongs to it
//     (its progressToken, its subscription, a log message while it is
//     the one open); subscriptions/listen is always a stream, closed by
//     the client (the bridge then sends notifications/cancelled).
//
// Usage: node bridge.mjs PORT PROGMUX [ARGS...]; prints "listening PORT"
// once ready. Ends its progmux processes on SIGTERM or SIGINT.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

const [portArg, cmd, ...args] = process.argv.slice(2);
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const SUB = 'io.modelcontextprotocol/subscriptionId';

let nextId = 1;
const children = new Set();

// One progmux: its stdin, and the requests waiting on its replies.
function child() {
  const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const c = { p, pending: new Map(), open: [] };
  children.add(c);
  let buf = '';
  p.stdout.on('data', (d) => {
    buf += d.toString('utf8');
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim() === '') continue;
      let m;
      try { m = JSON.parse(line); } catch { continue; }
      route(c, m);
    }
  });
  p.on('exit', () => {
    children.delete(c);
    for (const r of c.pending.values()) finish(r, { jsonrpc: '2.0', id: r.orig, error: { code: -32603, message: 'progmux exited' } });
  });
  p.stdin.on('error', () => {});
  return c;
}

const modern = child();
const sessions = new Map();

// Write an SSE event on a request's response (switching it to SSE).
function event(r, m) {
  if (!r.sse) {
    r.sse = true;
    r.res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  }
  r.res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
}

// The reply to a request: on its stream, or as JSON with its status.
function finish(r, m) {
  r.c.pending.delete(r.id);
  r.c.open = r.c.open.filter((x) => x !== r);
  if (r.done) return;
  r.done = true;
  if (r.sse) {
    event(r, m);
    r.res.end();
    return;
  }
  let status = 200;
  if (m.error && r.modern) {
    const code = m.error.code;
    if (code === -32601) status = 404;
    else if (code === -32602 || (code <= -32020 && code >= -32022)) status = 400;
  }
  const headers = { 'Content-Type': 'application/json' };
  if (r.session) headers['Mcp-Session-Id'] = r.session;
  r.res.writeHead(status, headers);
  r.res.end(JSON.stringify(m));
}

// A message from progmux: a reply, or a notification for whom it
// belongs to.
function route(c, m) {
  if (m.id !== undefined && m.method === undefined) {
    const r = c.pending.get(m.id);
    if (r) finish(r, { ...m, id: r.orig });
    return;
  }
  if (m.method === undefined) return;
  const meta = m.params && m.params._meta;
  if (meta && meta[SUB] !== undefined) {
    const r = c.pending.get(meta[SUB]);
    if (r) event(r, { ...m, params: { ...m.params, _meta: { ...meta, [SUB]: r.orig } } });
    return;
  }
  const tok = m.params && m.params.progressToken;
  let r = tok !== undefined ? c.open.find((x) => x.token !== undefined && x.token === tok) : undefined;
  if (!r && m.method === 'notifications/message') r = c.open[c.open.length - 1];
  if (!r && c.get) r = c.get;
  if (r) event(r, m);
}

// An error the bridge itself gives (transport faults only).
function reject(res, status, id, code, message) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } }));
}

const server = createServer((req, res) => {
  const session = req.headers['mcp-session-id'];
  if (req.method === 'DELETE') {
    const c = sessions.get(session);
    if (!c) return reject(res, 404, null, -32600, 'no such session');
    sessions.delete(session);
    c.p.stdin.end();
    res.writeHead(200);
    return res.end();
  }
  if (req.method === 'GET') {
    const c = sessions.get(session);
    if (!c) return reject(res, 405, null, -32600, 'GET needs a session');
    c.get = { res, sse: false, done: false };
    event(c.get, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: 'stream open' } });
    req.on('close', () => { c.get = undefined; });
    return undefined;
  }
  if (req.method !== 'POST') return reject(res, 405, null, -32600, 'POST, GET or DELETE');
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    let m;
    try { m = JSON.parse(body); } catch { return reject(res, 400, null, -32700, 'parse error'); }
    let c;
    let isModern = false;
    const modernMeta = m && m.params && m.params._meta && m.params._meta[META_VERSION] !== undefined;
    if (m && m.method === 'initialize' && !modernMeta && session === undefined) {
      c = child();
      const sid = randomUUID();
      sessions.set(sid, c);
      c.sid = sid;
    } else if (session !== undefined) {
      c = sessions.get(session);
      if (!c) return reject(res, 404, m && m.id, -32600, 'no such session');
    } else {
      c = modern;
      isModern = true;
      const meta = m && m.params && m.params._meta;
      const hv = req.headers['mcp-protocol-version'];
      if (m && m.id !== undefined && (hv === undefined ||
          (meta && typeof meta[META_VERSION] === 'string' && meta[META_VERSION] !== hv))) {
        return reject(res, 400, m.id, -32020, hv === undefined ? 'header mismatch: MCP-Protocol-Version is missing' :
          'header mismatch: MCP-Protocol-Version differs from _meta\'s protocol version');
      }
      // Mcp-Method and Mcp-Name, when sent, name what the body does.
      const hm = req.headers['mcp-method'];
      const hn = req.headers['mcp-name'];
      const p = (m && m.params) || {};
      const name = p.name ?? p.uri ?? p.taskId;
      if (m && m.id !== undefined && ((hm !== undefined && hm !== m.method) ||
          (hn !== undefined && name !== undefined && hn !== String(name)))) {
        return reject(res, 400, m.id, -32020, 'header mismatch: Mcp-Method or Mcp-Name differs from the body');
      }
    }
    if (!m || m.id === undefined) {
      c.p.stdin.write(JSON.stringify(m) + '\n');
      res.writeHead(202);
      return res.end();
    }
    const id = `b${nextId++}`;
    const r = { c, id, orig: m.id, res, sse: false, done: false, modern: isModern, session: c.sid,
      token: m.params && m.params._meta ? m.params._meta.progressToken : undefined };
    c.pending.set(id, r);
    c.open.push(r);
    if (m.method === 'subscriptions/listen') {
      r.res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      r.sse = true;
    }
    res.on('close', () => {
      if (r.done) return;
      r.done = true;
      c.pending.delete(id);
      c.open = c.open.filter((x) => x !== r);
      c.p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }) + '\n');
    });
    c.p.stdin.write(JSON.stringify({ ...m, id }) + '\n');
    return undefined;
  });
});

function quit() {
  server.close();
  for (const c of children) c.p.stdin.end();
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', quit);
process.on('SIGINT', quit);
server.listen(Number(portArg), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
