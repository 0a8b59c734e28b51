// e2e.mjs — build/progmux driven by the official MCP TypeScript SDK client.
//
// Starts a private tmux server (tmux -S <tmpdir>/tmux.sock -f /dev/null;
// the default tmux server is never touched), spawns progmux over stdio with
// PROGMUX_SOCKET_PATH pointing at it, and goes through the SDK: initialize,
// ping, tools/list, start_program and read_program to the end, every other
// tool, the fields beyond the reference tools (unfinishedLine,
// waitingForInput, until, tail, filter, context, send_keys' timeoutMs,
// run_program's early return, filter and tail, send_keys' screen on a
// full-screen program), a call with invalid arguments, an unknown tool;
// the instructions' facts and the prompts (tap.mjs, promptSteps), and no
// trace of the view (MCP Apps) for this client, which renders none.
// The SDK validates every successful
// tools/call's structuredContent against the tool's outputSchema itself, so
// each call here also checks the contract. Prints TAP, a cmocka-style
// summary for scripts/test/test.sh and "N passed, M failed"; exits non-zero on
// any failure.
//
// Environment: PROGMUX_BIN (default build/progmux), E2E_TIMEOUT_MS (60000),
// PROGMUX_TEST_TMUX (the tmux under test, default tmux: it starts and ends
// the private server and is progmux's PROGMUX_TMUX_BIN),
// PROGMUX_TEST_TMUX_VERSION (if set, checked to be what both run).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

import { builtTools, check, progmuxEnv, promptSteps, step, summary, tally } from './tap.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.resolve(root, process.env.PROGMUX_BIN || 'build/progmux');
const overall = Number(process.env.E2E_TIMEOUT_MS || 60000);
const tmuxBin = process.env.PROGMUX_TEST_TMUX || 'tmux';

// Run tmux on our private socket only.
function tmux(sock, ...args) {
  return execFileSync(tmuxBin, ['-S', sock, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'progmux-e2e-'));
  const sock = path.join(dir, 'tmux.sock');
  let client = null;
  let stderr = '';
  const guard = setTimeout(() => {
    check('whole run within ' + overall + ' ms', false, 'timed out');
    finish(dir, sock, client, stderr).then(() => process.exit(1));
  }, overall);

  try {
    tmux(sock, '-f', '/dev/null', 'new-session', '-d', '-s', 'base', '-x', '80', '-y', '24');
  } catch (e) {
    check('private tmux server starts', false, e.message);
    clearTimeout(guard);
    await finish(dir, sock, null, '');
    return;
  }

  const env = progmuxEnv(sock, dir, tmuxBin);
  const transport = new StdioClientTransport({ command: bin, args: [], env, stderr: 'pipe' });
  if (transport.stderr) transport.stderr.on('data', (d) => { stderr += d.toString(); });
  client = new Client({ name: 'progmux-e2e', version: '1.0.0' });

  const connected = await step('connect and initialize over stdio', async () => {
    await client.connect(transport);
  });
  if (!connected) {
    clearTimeout(guard);
    await finish(dir, sock, client, stderr);
    return;
  }

  // scripts/test/test-tmux.sh names the version under test: the private server
  // and progmux (its start line on stderr) run that one.
  const wantTmux = process.env.PROGMUX_TEST_TMUX_VERSION;
  if (wantTmux) {
    await step(`tmux ${wantTmux} is the one under test`, async () => {
      const v = tmux(sock, 'display-message', '-p', '#{version}').trim();
      if (v !== wantTmux) return `the private server is ${v}`;
      const t0 = Date.now();
      while (!stderr.includes(` on tmux ${wantTmux}, `) && Date.now() - t0 < 5000) {
        await new Promise((r) => setTimeout(r, 20));
      }
      if (!stderr.includes(` on tmux ${wantTmux}, `)) return `progmux's start line: ${stderr.split('\n')[0]}`;
    });
  }
  await step('serverInfo names progmux with a version', async () => {
    const v = client.getServerVersion();
    if (!v || v.name !== 'progmux' || typeof v.version !== 'string' || !v.version) return JSON.stringify(v);
  });
  await step('capabilities offer tools', async () => {
    const c = client.getServerCapabilities();
    if (!c || typeof c.tools !== 'object') return JSON.stringify(c);
  });
  await step('ping', async () => {
    const r = await client.ping();
    if (!same(r, {})) return JSON.stringify(r);
  });
  await promptSteps(client, '2025-06-18');

  let tools = [];
  await step('tools/list lists the build\'s tools (schemas/), each with its schemas', async () => {
    const r = await client.listTools();
    tools = r.tools;
    const names = tools.map((t) => t.name);
    if (names.join(',') !== [...new Set(names)].join(',') || [...names].sort().join(',') !== builtTools().join(','))
      return `listed ${names.join(',')}; the build has ${builtTools().join(',')}`;
    for (const want of builtTools()) {
      const t = tools.find((x) => x.name === want);
      if (!t) return `missing ${want} in ${names.join(',')}`;
      if (!t.inputSchema || t.inputSchema.type !== 'object') return `${want}: inputSchema`;
      if (!t.outputSchema || t.outputSchema.type !== 'object') return `${want}: outputSchema`;
      if (typeof t.title !== 'string' || typeof t.description !== 'string') return `${want}: title/description`;
      if (!t.annotations) return `${want}: annotations`;
      if (!t._meta || !t._meta['io.progmux/capability']) return `${want}: _meta capability`;
      // This client renders no view (MCP Apps): nothing of it.
      if (t._meta.ui || t._meta['ui/resourceUri']) return `${want}: _meta names the view`;
    }
    if (names.includes('view_update')) return 'the view\'s own tool is listed';
    if (r.nextCursor !== undefined) return `unexpected nextCursor ${r.nextCursor}`;
  });

  let programId = null;
  await step('start_program printf (structuredContent checked by the SDK)', async () => {
    const r = await client.callTool({
      name: 'start_program',
      arguments: { argv: ['printf', '%s\\n', 'hello', ';', 'x'] },
    });
    if (r.isError) return 'isError: ' + JSON.stringify(r.content);
    const sc = r.structuredContent;
    if (!sc || typeof sc.programId !== 'string' || !/^%\d+$/.test(sc.paneId)) return JSON.stringify(sc);
    programId = sc.programId;
  });

  await step('read_program until ended: text, outcome, exit status', async () => {
    if (!programId) return 'no programId';
    let text = '';
    let cursor = 0;
    let last = null;
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline) {
      const r = await client.callTool({
        name: 'read_program',
        arguments: { programId, cursor, timeoutMs: 5000 },
      });
      if (r.isError) return 'isError: ' + JSON.stringify(r.content);
      last = r.structuredContent;
      text += last.text;
      cursor = last.cursor;
      if (last.ended) break;
    }
    if (!last || !last.ended) return 'not ended: ' + JSON.stringify(last);
    if (text !== 'hello\n;\nx\n') return 'text ' + JSON.stringify(text);
    if (last.outcome !== 'completed') return 'outcome ' + last.outcome;
    if (last.exitStatus !== 0) return 'exitStatus ' + last.exitStatus;
    if (last.signal !== null) return 'signal ' + last.signal;
    if (last.outputComplete !== true) return 'outputComplete ' + last.outputComplete;
  });

  // Every other tool through the SDK: each result validated by it.
  await step('run_program echo: one call, output and status', async () => {
    const r = await client.callTool({ name: 'run_program', arguments: { argv: ['echo', 'hi'] } });
    if (r.isError) return 'isError: ' + JSON.stringify(r.content);
    const sc = r.structuredContent;
    if (sc.text !== 'hi\n' || sc.outcome !== 'completed' || sc.exitStatus !== 0) return JSON.stringify(sc);
  });
  await step('run_program with input and separateStderr', async () => {
    const r = await client.callTool({
      name: 'run_program',
      arguments: { argv: ['sh', '-c', 'cat; echo oops >&2'], input: 'in\n', separateStderr: true },
    });
    if (r.isError) return 'isError: ' + JSON.stringify(r.content);
    const sc = r.structuredContent;
    if (sc.text !== 'in\n' || sc.stderr !== 'oops\n') return JSON.stringify(sc);
  });
  let pane = null;
  let longId = null;
  await step('start_program a long one, capture_pane shows its screen', async () => {
    const r = await client.callTool({
      name: 'start_program',
      arguments: { argv: ['sh', '-c', 'echo screen-line; exec cat'] },
    });
    if (r.isError) return 'isError: ' + JSON.stringify(r.content);
    longId = r.structuredContent.programId;
    pane = r.structuredContent.paneId;
    const first = await client.callTool({ name: 'read_program', arguments: { programId: longId, timeoutMs: 10000 } });
    if (first.structuredContent.text !== 'screen-line\n') return JSON.stringify(first.structuredContent);
    const c = await client.callTool({ name: 'capture_pane', arguments: { paneId: pane } });
    if (c.isError) return 'isError: ' + JSON.stringify(c.content);
    if (!c.structuredContent.text.includes('screen-line')) return JSON.stringify(c.structuredContent);
  });
  await step('send_keys types into it; read_program sees the echo', async () => {
    const s = await client.callTool({ name: 'send_keys', arguments: { paneId: pane, keys: 'typed; #{x}', literal: true } });
    if (s.isError || s.structuredContent.sent !== true) return JSON.stringify(s);
    const r = await client.callTool({ name: 'read_program', arguments: { programId: longId, cursor: 12, timeoutMs: 10000 } });
    if (!r.structuredContent.text.includes('typed; #{x}')) return JSON.stringify(r.structuredContent);
  });
  await step('list_programs lists it', async () => {
    const r = await client.callTool({ name: 'list_programs', arguments: {} });
    if (r.isError) return 'isError: ' + JSON.stringify(r.content);
    if (!r.structuredContent.programs.some((p) => p.programId === longId && p.outcome === 'running')) {
      return JSON.stringify(r.structuredContent);
    }
  });
  await step('stop_program ends it', async () => {
    const r = await client.callTool({ name: 'stop_program', arguments: { programId: longId } });
    if (r.isError) return 'isError: ' + JSON.stringify(r.content);
    if (r.structuredContent.wasRunning !== true || r.structuredContent.outcome !== 'stopped') {
      return JSON.stringify(r.structuredContent);
    }
  });

  await step('send_keys C-c right after start_program interrupts the program (SIGINT)', async () => {
    const r = await client.callTool({ name: 'start_program', arguments: { argv: ['sleep', '30'] } });
    if (r.isError) return 'isError: ' + JSON.stringify(r.content);
    const { programId: id, paneId } = r.structuredContent;
    const s = await client.callTool({ name: 'send_keys', arguments: { paneId, keys: 'C-c', enter: false } });
    if (s.isError) return 'isError: ' + JSON.stringify(s.content);
    let cursor = 0;
    let last = null;
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline) {
      const x = await client.callTool({ name: 'read_program', arguments: { programId: id, cursor, timeoutMs: 5000 } });
      last = x.structuredContent;
      cursor = last.cursor;
      if (last.ended) break;
    }
    if (!last || last.outcome !== 'completed' || last.signal !== 'SIGINT') return JSON.stringify(last);
  });

  // Beyond the reference tools: the conversation with a program. The SDK
  // validates each result against the served outputSchema.
  await step('a prompt is seen at once (unfinishedLine, waitingForInput), list_programs too', async () => {
    const r = await client.callTool({ name: 'start_program', arguments: { argv: ['sh', '-c', 'printf "Name? "; read n; echo "hi $n"; printf "Again? "; read m; echo "bye $m"'] } });
    if (r.isError) return 'isError: ' + JSON.stringify(r.content);
    const { programId: id, paneId } = r.structuredContent;
    const x = await client.callTool({ name: 'read_program', arguments: { programId: id, timeoutMs: 20000 } });
    const sc = x.structuredContent;
    if (sc.text !== '' || sc.unfinishedLine !== 'Name? ' || sc.waitingForInput !== true) return JSON.stringify(sc);
    const l = await client.callTool({ name: 'list_programs', arguments: {} });
    const it = l.structuredContent.programs.find((p) => p.programId === id);
    if (!it || it.waitingForInput !== true || it.unfinishedLine !== 'Name? ') return JSON.stringify(it);
    const s = await client.callTool({ name: 'send_keys', arguments: { paneId, keys: 'ann', timeoutMs: 20000 } });
    const ss = s.structuredContent;
    if (ss.programId !== id || ss.text !== 'Name? ann\nhi ann\n' || ss.unfinishedLine !== 'Again? ' ||
        ss.waitingForInput !== true || ss.outcome !== 'running' || ss.ended !== false) return JSON.stringify(ss);
    const s2 = await client.callTool({ name: 'send_keys', arguments: { paneId, keys: 'bo', timeoutMs: 20000 } });
    let s2c = s2.structuredContent;
    // Its end may come a moment after its last line (a slow machine, an
    // emulator): a read from the reply's cursor has it.
    if (s2c.text.includes('bye bo\n') && s2c.ended !== true)
      s2c = { ...(await client.callTool({ name: 'read_program', arguments: { programId: id, cursor: s2c.cursor, timeoutMs: 20000 } })).structuredContent, text: s2c.text };
    if (!s2c.text.includes('bye bo\n') || s2c.ended !== true || s2c.outcome !== 'completed') return JSON.stringify(s2c);
  });
  await step('read_program until: matched, and a bad expression is a tool error', async () => {
    const r = await client.callTool({ name: 'start_program', arguments: { argv: ['sh', '-c', 'echo one; echo two; echo ready now; exec sleep 30'] } });
    const id = r.structuredContent.programId;
    const x = await client.callTool({ name: 'read_program', arguments: { programId: id, until: '^ready', timeoutMs: 20000 } });
    const sc = x.structuredContent;
    if (sc.matched !== true || sc.text !== 'one\ntwo\nready now\n') return JSON.stringify(sc);
    const bad = await client.callTool({ name: 'read_program', arguments: { programId: id, until: '(' } });
    if (bad.isError !== true || !/until/.test(bad.content[0].text)) return JSON.stringify(bad);
    await client.callTool({ name: 'stop_program', arguments: { programId: id } });
  });
  await step('until speaks PCRE2: \\d+ and (?i) match', async () => {
    const r = await client.callTool({ name: 'start_program', arguments: { argv: ['sh', '-c', 'echo noise; echo "listening on port 8123"; exec sleep 30'] } });
    const id = r.structuredContent.programId;
    for (const until of ['port \\d+$', '(?i)LISTENING']) {
      const x = await client.callTool({ name: 'read_program', arguments: { programId: id, until, timeoutMs: 20000 } });
      const sc = x.structuredContent;
      if (sc.matched !== true || sc.text !== 'noise\nlistening on port 8123\n') return until + ': ' + JSON.stringify(sc);
    }
    await client.callTool({ name: 'stop_program', arguments: { programId: id } });
  });
  await step('read_program tail, filter, context and until together; run_program filter and tail (new fields validated)', async () => {
    const r = await client.callTool({ name: 'run_program', arguments: { argv: ['sh', '-c', 'seq 1 2000; echo "ERROR at the end"'], filter: '^ERROR|^1000$', context: 1 } });
    const rc = r.structuredContent;
    if (r.isError || rc.matchedLines !== 2 || rc.scannedLines !== 2001 || rc.text !== '999-999\n1000:1000\n1001-1001\n--\n2000-2000\n2001:ERROR at the end\n') return JSON.stringify(rc);
    const id = rc.programId;
    const t = await client.callTool({ name: 'read_program', arguments: { programId: id, tail: 2, timeoutMs: 0 } });
    const tc = t.structuredContent;
    if (tc.text !== '2000\nERROR at the end\n' || tc.skippedLines !== 1999 || tc.ended !== true) return JSON.stringify(tc);
    const f = await client.callTool({ name: 'read_program', arguments: { programId: id, filter: '^\\d{4}$', timeoutMs: 0, maxLines: 3 } });
    const fc = f.structuredContent;
    if (fc.text !== '1000:1000\n1001:1001\n1002:1002\n' || fc.matchedLines !== 3 || fc.ended !== false) return JSON.stringify(fc);
    if (!/\[3 of 1002 lines matched/.test(f.content[0].text)) return f.content[0].text;
    const rt = await client.callTool({ name: 'run_program', arguments: { argv: ['seq', '1', '500'], tail: 1 } });
    if (rt.structuredContent.text !== '500\n') return JSON.stringify(rt.structuredContent);
    // until with filter and tail: the last matching line and until's, skipped lines counted, why it returned.
    const u = await client.callTool({ name: 'read_program', arguments: { programId: id, until: '^1500$', filter: '^1\\d99$', tail: 1, timeoutMs: 0 } });
    const uc = u.structuredContent;
    if (uc.text !== '1499:1499\n1500:1500\n' || uc.matched !== true || uc.skippedLines !== 1498 || uc.matchedLines !== 5 || uc.reason !== 'matched') return JSON.stringify(uc);
    const rf = await client.callTool({ name: 'run_program', arguments: { argv: ['seq', '1', '500'], filter: '7$', tail: 2 } });
    const rfc = rf.structuredContent;
    if (rfc.text !== '487:487\n497:497\n' || rfc.matchedLines !== 50 || rfc.reason !== 'ended') return JSON.stringify(rfc);
  });
  await step('send_keys on a full-screen program returns its screen (screen validated)', async () => {
    const file = path.join(dir, 'lines.txt');
    writeFileSync(file, Array.from({ length: 200 }, (_, i) => 'line ' + String(i + 1).padStart(3, '0') + '\n').join(''));
    const r = await client.callTool({ name: 'start_program', arguments: { argv: ['less', file] } });
    const { programId: id, paneId } = r.structuredContent;
    for (let i = 0; i < 40; i++) {
      const x = await client.callTool({ name: 'read_program', arguments: { programId: id, timeoutMs: 5000 } });
      if (x.structuredContent.waitingForInput) break;
    }
    const s = await client.callTool({ name: 'send_keys', arguments: { paneId, keys: '100g', enter: false, timeoutMs: 20000 } });
    const sc = s.structuredContent;
    if (typeof sc.screen !== 'string' || !sc.screen.startsWith('line 100\n') || sc.text !== '') return JSON.stringify(sc);
    await client.callTool({ name: 'stop_program', arguments: { programId: id } });
  });
  await step('run_program returns early at a prompt, kept and readable', async () => {
    const r = await client.callTool({ name: 'run_program', arguments: { argv: ['sh', '-c', 'printf "Proceed? [Y/n] "; read a; echo "got $a"'], timeoutMs: 20000 } });
    const sc = r.structuredContent;
    if (sc.outcome !== 'running' || sc.waitingForInput !== true || sc.unfinishedLine !== 'Proceed? [Y/n] ') return JSON.stringify(sc);
    const s = await client.callTool({ name: 'send_keys', arguments: { paneId: sc.paneId, keys: 'y', timeoutMs: 20000 } });
    if (!s.structuredContent.text.includes('got y')) return JSON.stringify(s.structuredContent);
    const x = await client.callTool({ name: 'read_program', arguments: { programId: sc.programId, timeoutMs: 20000 } });
    if (!x.structuredContent.text.includes('got y')) return JSON.stringify(x.structuredContent);
  });

  await step('start_program with argv [] is a tool error (isError)', async () => {
    const r = await client.callTool({ name: 'start_program', arguments: { argv: [] } });
    if (r.isError !== true) return JSON.stringify(r);
    const t = (r.content || []).find((b) => b.type === 'text');
    if (!t || !/argv/.test(t.text)) return 'message does not name argv: ' + JSON.stringify(r.content);
  });

  await step('read_program of an unknown programId is a tool error', async () => {
    const r = await client.callTool({ name: 'read_program', arguments: { programId: 'no-such-program', timeoutMs: 0 } });
    if (r.isError !== true) return JSON.stringify(r);
  });

  await step('an unknown tool rejects with McpError -32602', async () => {
    try {
      const r = await client.callTool({ name: 'no_such_tool', arguments: {} });
      return 'resolved: ' + JSON.stringify(r);
    } catch (e) {
      if (!(e instanceof McpError)) return 'not an McpError: ' + e;
      if (e.code !== ErrorCode.InvalidParams) return 'code ' + e.code;
    }
  });

  await step('ping still answers after all that', async () => {
    const r = await client.ping();
    if (!same(r, {})) return JSON.stringify(r);
  });

  clearTimeout(guard);
  await finish(dir, sock, client, stderr);
}

let finished = false;

// Close the client (progmux sees EOF), kill our tmux server, report.
async function finish(dir, sock, client, stderr) {
  if (finished) return;
  finished = true;
  if (client) {
    try {
      await client.close();
    } catch (e) {
      check('client closes', false, e.message);
    }
  }
  try {
    tmux(sock, 'kill-server');
  } catch {
    // Already gone.
  }
  rmSync(dir, { recursive: true, force: true });
  if (tally.failed > 0 && stderr) {
    console.log('# progmux stderr:');
    for (const line of stderr.split('\n').slice(-40)) console.log('#   ' + line);
  }
  summary();
}

main().catch(async (e) => {
  check('e2e run', false, e && e.stack ? e.stack : e);
  process.exitCode = 1;
});
