// eras.mjs — build/progmux in both protocol eras, driven by the official
// MCP TypeScript client (@modelcontextprotocol/client 2.x).
//
// Two clients on one private tmux server (tmux -S <tmpdir>/tmux.sock; the
// default server is never touched), each with a progmux of its own:
//
//   - legacy: the client's default, the 2025 initialize handshake, which
//     negotiates 2025-11-25: resources (list, read, templates, subscribe
//     and its updates, list_changed), the experimental tasks (a tools/call
//     with "task", tasks/get, tasks/result, tasks/list, tasks/cancel) and
//     execution.taskSupport "optional" on the tools that wait;
//     the instructions' facts and the prompts (both clients: tap.mjs,
//     promptSteps);
//   - modern: versionNegotiation "auto" (server/discover first), with the
//     io.modelcontextprotocol/tasks extension in its capabilities: the
//     era and version the client settled on, tools/list's fixed order, a
//     short call answered directly, a long one answered with a task whose
//     tasks/get reports the program's last line and cursor and whose
//     result is the direct call's (ids aside), tasks/cancel, resources
//     and -32602 for one not there, subscriptions/listen's list change.
//
// The client validates every result it knows against its schemas, a
// tools/call's structuredContent against the outputSchema included. Prints
// TAP, a cmocka-style summary for scripts/test/test.sh and "N passed, M
// failed"; exits non-zero on any failure.
//
// Environment: PROGMUX_BIN (default build/progmux), E2E_TIMEOUT_MS (90000),
// PROGMUX_TEST_TMUX (the tmux under test, default tmux).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { builtTools, check, progmuxEnv, promptSteps, step, summary, tally } from './tap.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.resolve(root, process.env.PROGMUX_BIN || 'build/progmux');
const overall = Number(process.env.E2E_TIMEOUT_MS || 90000);
const tmuxBin = process.env.PROGMUX_TEST_TMUX || 'tmux';
const TASKS = 'io.modelcontextprotocol/tasks';

// A result schema that takes any result as it is (for the task methods
// and task-augmented calls, which the client has no schema for).
const anyResult = {
  '~standard': { version: 1, vendor: 'progmux-e2e', validate: (value) => ({ value }) },
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Wait until pred() holds, at most ms; false if it never did.
async function until(pred, ms) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

/*
 * Raw requests beside the client, on its own transport, for what the
 * client does not speak: the tasks extension (it refuses a tools/call
 * answered with resultType "task"). Replies to ids "raw-N" are taken
 * before the client sees them.
 */
function rawChannel(t, meta, tag = 'raw') {
  const waiting = new Map();
  let next = 1;
  const orig = t.onmessage;
  t.onmessage = (m, extra) => {
    if (m && typeof m.id === 'string' && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
      return;
    }
    orig(m, extra);
  };
  return (method, params) => new Promise((resolve, reject) => {
    const id = `${tag}-${next++}`;
    const timer = setTimeout(() => { waiting.delete(id); reject(new Error(`${method}: no reply`)); }, 10000);
    waiting.set(id, (m) => {
      clearTimeout(timer);
      if (m.error) reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
      else resolve(m.result);
    });
    t.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
  });
}

// A tool result with its program and pane ids made neutral, to compare a
// task's result with a direct call's.
function neutral(r) {
  return JSON.stringify(r).replace(/\bp\d+\b/g, 'pN').replace(/%\d+/g, '%N')
    .replace(/"_meta":\{[^{}]*\{[^{}]*\}\},?/g, '');
}

// progmux on our private tmux server, with its stderr kept.
function transport(dir, sock, out) {
  const env = { ...progmuxEnv(sock, dir, tmuxBin), PROGMUX_SESSION: out.session };
  const t = new StdioClientTransport({ command: bin, args: [], env, stderr: 'pipe' });
  if (t.stderr) t.stderr.on('data', (d) => { out.stderr += d.toString(); });
  return t;
}

// The legacy era: initialize, 2025-11-25.
async function legacy(dir, sock) {
  const out = { stderr: '', session: 'legacy' };
  const client = new Client({ name: 'progmux-eras-legacy', version: '1.0.0' });
  const seen = { listChanged: 0, updated: [] };
  client.setNotificationHandler('notifications/resources/list_changed', async () => { seen.listChanged++; });
  client.setNotificationHandler('notifications/resources/updated', async (m) => { seen.updated.push(m.params.uri); });
  if (!await step('legacy: connects with initialize', () => client.connect(transport(dir, sock, out)))) return out;
  await step('legacy: era legacy, version 2025-11-25', () => {
    const era = client.getProtocolEra();
    const v = client.getNegotiatedProtocolVersion();
    if (era !== 'legacy' || v !== '2025-11-25') return `${era} ${v}`;
  });
  await step('legacy: capabilities offer resources (subscribe, listChanged) and tasks for tools/call', () => {
    const c = client.getServerCapabilities();
    if (!c.resources || !c.resources.subscribe || !c.resources.listChanged) return JSON.stringify(c);
    if (!c.tasks || !c.tasks.requests || !c.tasks.requests.tools || !c.tasks.requests.tools.call) return JSON.stringify(c);
  });
  await promptSteps(client, 'legacy');
  await step('legacy: run_program, read_program, send_keys take a task (optional), none requires one', async () => {
    const { tools } = await client.listTools();
    const opt = tools.filter((t) => t.execution && t.execution.taskSupport === 'optional').map((t) => t.name).sort();
    if (JSON.stringify(opt) !== '["read_program","run_program","send_keys"]') return opt.join(',');
    if (tools.some((t) => t.execution && t.execution.taskSupport === 'required')) return 'one is required';
  });
  let uri;
  let pane;
  await step('legacy: a started program is a resource: its output and its screen', async () => {
    const r = await client.callTool({ name: 'start_program', arguments: { argv: ['sh', '-c', 'echo one; read x; echo "two $x"'] } });
    const id = r.structuredContent.programId;
    pane = r.structuredContent.paneId;
    uri = `progmux://programs/${id}/output`;
    await client.subscribeResource({ uri });
    let resources;
    let uris = [];
    const end = Date.now() + 5000;
    while (!uris.includes(`progmux://programs/${id}/screen`) && Date.now() < end) {
      ({ resources } = await client.listResources());
      uris = resources.map((x) => x.uri);
      await sleep(50);
    }
    if (!uris.includes(uri) || !uris.includes(`progmux://programs/${id}/screen`)) return uris.join(',');
    const d = resources.find((x) => x.uri === uri).description;
    if (!/untrusted/.test(d)) return d;
  });
  await step('legacy: resources/list_changed came as it started', () =>
    until(() => seen.listChanged > 0, 5000).then((ok) => ok || 'no list_changed'));
  await step('legacy: resources/read gives the last page and the cursor read_program goes on from', async () => {
    await until(() => seen.updated.includes(uri), 5000);
    const r = await client.readResource({ uri });
    const t = r.contents[0].text;
    if (!/^one\n/.test(t) || !/read_program p\d+ from cursor 4 /.test(t)) return t;
    if (r.contents[0]._meta['io.progmux/cursor'] !== 4) return JSON.stringify(r.contents[0]._meta);
  });
  await step('legacy: resources/updated for the subscribed output as the program prints', async () => {
    const before = seen.updated.length;
    await client.callTool({ name: 'send_keys', arguments: { paneId: pane, keys: 'x', enter: true } });
    if (!await until(() => seen.updated.slice(before).includes(uri), 5000)) return `no update: ${seen.updated.join(',')}`;
  });
  await step('legacy: templates name {programId}', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    const t = resourceTemplates.map((x) => x.uriTemplate);
    if (!t.includes('progmux://programs/{programId}/output')) return t.join(',');
  });
  await step('legacy: a resource not there is an error with its uri', async () => {
    try {
      await client.readResource({ uri: 'progmux://programs/p999/output' });
      return 'read';
    } catch (e) {
      // (The client reads 2025's -32002 as 2026's -32602.)
      if (!(e instanceof ProtocolError) || e.code !== -32602 || !e.data ||
          e.data.uri !== 'progmux://programs/p999/output') return `${e.code} ${e.message}`;
    }
  });
  await step('legacy: a task-augmented run_program: the task at once, then tasks/result is the direct call\'s result', async () => {
    const argv = ['sh', '-c', 'sleep 1; echo done'];
    const c = await client.request({ method: 'tools/call', params: { name: 'run_program', arguments: { argv }, task: { ttl: 60000 } } }, anyResult);
    if (!c.task || c.task.status !== 'working' || typeof c.task.taskId !== 'string') return JSON.stringify(c);
    const g = await client.request({ method: 'tasks/get', params: { taskId: c.task.taskId } }, anyResult);
    if (g.taskId !== c.task.taskId) return JSON.stringify(g);
    const r = await client.request({ method: 'tasks/result', params: { taskId: c.task.taskId } }, anyResult);
    if (!r._meta || !r._meta['io.modelcontextprotocol/related-task']) return JSON.stringify(r).slice(0, 300);
    const direct = await client.callTool({ name: 'run_program', arguments: { argv } });
    if (neutral({ ...r, _meta: undefined }) !== neutral(direct)) return `${neutral(r)} vs ${neutral(direct)}`;
    const l = await client.request({ method: 'tasks/list', params: {} }, anyResult);
    const got = l.tasks.find((t) => t.taskId === c.task.taskId);
    if (!got || got.status !== 'completed') return JSON.stringify(l);
  });
  await step('legacy: tasks/cancel lets go of a waiting call: cancelled', async () => {
    const x = await client.request({ method: 'tools/call', params: { name: 'run_program', arguments: { argv: ['sleep', '20'] }, task: {} } }, anyResult);
    const k = await client.request({ method: 'tasks/cancel', params: { taskId: x.task.taskId } }, anyResult);
    if (k.status !== 'cancelled') return JSON.stringify(k);
    const g = await client.request({ method: 'tasks/get', params: { taskId: x.task.taskId } }, anyResult);
    if (g.status !== 'cancelled') return JSON.stringify(g);
  });
  await client.close();
  return out;
}

// The modern era: server/discover, then 2026-07-28 requests.
async function modern(dir, sock) {
  const out = { stderr: '', session: 'modern' };
  const client = new Client({ name: 'progmux-eras-modern', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { extensions: { [TASKS]: {} } } });
  const seen = { listChanged: 0 };
  client.setNotificationHandler('notifications/resources/list_changed', async () => { seen.listChanged++; });
  const t = transport(dir, sock, out);
  if (!await step('modern: connects (server/discover first)', () => client.connect(t))) return out;
  const raw = rawChannel(t, {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  });
  // The same without the tasks extension: a call that is never made a
  // task, however long a loaded machine makes it.
  const rawDirect = rawChannel(t, {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  }, 'direct');
  await step('modern: era modern, version 2026-07-28', () => {
    const era = client.getProtocolEra();
    const v = client.getNegotiatedProtocolVersion();
    if (era !== 'modern' || v !== '2026-07-28') return `${era} ${v}`;
  });
  await step('modern: capabilities offer resources and the tasks extension', () => {
    const c = client.getServerCapabilities();
    if (!c.resources || !c.extensions || !c.extensions[TASKS]) return JSON.stringify(c);
  });
  await promptSteps(client, 'modern');
  await step('modern: tools/list in the fixed order', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).join(',');
    // ask_user_secret last, in a build with its page's library.
    const built = builtTools();
    const want = ['start_program', 'read_program', 'run_program', 'stop_program', 'capture_pane',
      'send_keys', 'list_programs', 'ask_user_secret'].filter((n) => built.includes(n));
    if (want.length !== built.length) return `schemas/ has ${built}; the order here names ${want}`;
    if (names !== want.join(',')) return `${names}; want ${want.join(',')}`;
  });
  // A call that may become a task (read_program) but answers at once
  // (timeoutMs 0) is answered directly: its answer comes within the
  // second before a task, however loaded the machine (a run_program of
  // echo can take longer than that on one).
  await step('modern: a short call is answered directly', async () => {
    const s = await client.callTool({ name: 'start_program', arguments: { argv: ['sh', '-c', 'echo hi; exec sleep 30'] } });
    const id = s.structuredContent.programId;
    const r = await client.callTool({ name: 'read_program', arguments: { programId: id, timeoutMs: 0 } });
    await client.callTool({ name: 'stop_program', arguments: { programId: id } });
    if (typeof r.structuredContent?.cursor !== 'number' || r.structuredContent.outcome !== 'running') return JSON.stringify(r);
  });
  let sub;
  await step('modern: subscriptions/listen is acknowledged', async () => {
    sub = await client.listen({ resourcesListChanged: true });
  });
  const argv = ['sh', '-c', 'echo first; sleep 3; echo done'];
  let task;
  await step('modern: a long run_program becomes a task; tasks/get reports the last line and the cursor', async () => {
    const c = await raw('tools/call', { name: 'run_program', arguments: { argv } });
    if (c.resultType !== 'task' || c.status !== 'working') return JSON.stringify(c);
    task = c.taskId;
    // (On a loaded machine "first" may come after the task does.)
    let g;
    const end = Date.now() + 10000;
    do {
      g = await raw('tasks/get', { taskId: task });
      if (/last line "first"; cursor 6/.test(g.statusMessage)) return undefined;
      await sleep(100);
    } while (g.status === 'working' && Date.now() < end);
    return g.statusMessage;
  });
  await step('modern: list_changed came on the listen stream', () =>
    until(() => seen.listChanged > 0, 5000).then((ok) => ok || 'none'));
  await step('modern: the task completes with the direct call\'s result', async () => {
    let g;
    const end = Date.now() + 15000;
    do {
      await sleep(300);
      g = await raw('tasks/get', { taskId: task });
    } while (g.status === 'working' && Date.now() < end);
    if (g.status !== 'completed') return JSON.stringify(g);
    const direct = await rawDirect('tools/call', { name: 'run_program', arguments: { argv: ['sh', '-c', 'echo first; echo done'] } });
    if (g.result.structuredContent.text !== 'first\ndone\n') return JSON.stringify(g.result);
    const norm = (r) => neutral({ ...r, resultType: undefined, _meta: undefined }).replace(/"effectiveTimeoutMs":\d+/, '');
    if (norm(g.result) !== norm(direct)) return `${norm(g.result)} vs ${norm(direct)}`;
  });
  await step('modern: tasks/cancel, then tasks/get says cancelled', async () => {
    const c = await raw('tools/call', { name: 'run_program', arguments: { argv: ['sleep', '20'] } });
    if (c.resultType !== 'task') return JSON.stringify(c);
    await raw('tasks/cancel', { taskId: c.taskId });
    const g = await raw('tasks/get', { taskId: c.taskId });
    if (g.status !== 'cancelled') return JSON.stringify(g);
  });
  await step('modern: resources/read of a program\'s output', async () => {
    const { resources } = await client.listResources();
    const r = resources.find((x) => x.uri.endsWith('/output'));
    const got = await client.readResource({ uri: r.uri });
    if (!/cursor \d+/.test(got.contents[0].text)) return got.contents[0].text;
  });
  await step('modern: a resource not there is -32602', async () => {
    try {
      await client.readResource({ uri: 'progmux://programs/p999/output' });
      return 'read';
    } catch (e) {
      if (!(e instanceof ProtocolError) || e.code !== -32602) return `${e.code} ${e.message}`;
    }
  });
  if (sub) await sub.close();
  await client.close();
  return out;
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'progmux-eras-'));
  const sock = path.join(dir, 'tmux.sock');
  const errs = [];
  const guard = setTimeout(() => {
    check('whole run within ' + overall + ' ms', false, 'timed out');
    process.exitCode = 1;
    finish(dir, sock, errs);
    process.exit(1);
  }, overall);
  try {
    execFileSync(tmuxBin, ['-S', sock, '-f', '/dev/null', 'new-session', '-d', '-s', 'base'], { stdio: 'ignore' });
    errs.push(await legacy(dir, sock));
    errs.push(await modern(dir, sock));
  } catch (e) {
    check('eras run', false, e && e.stack ? e.stack : e);
  }
  clearTimeout(guard);
  finish(dir, sock, errs);
}

// End the private tmux server, remove the directory, sum up.
function finish(dir, sock, errs) {
  try {
    execFileSync(tmuxBin, ['-S', sock, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // Already gone.
  }
  rmSync(dir, { recursive: true, force: true });
  if (tally.failed > 0) {
    for (const o of errs) {
      console.log(`# progmux (${o.session}) stderr:`);
      for (const line of o.stderr.split('\n').slice(-20)) console.log('#   ' + line);
    }
  }
  summary();
}

main();
