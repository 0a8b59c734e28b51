// run.mjs DIR — an unpacked MCP Bundle of progmux started as a host
// starts it: the command and environment of its manifest's mcp_config,
// ${__dirname} the bundle's directory and each ${user_config.KEY} the
// person's value or else the default (here the person sets only the
// tmux socket: a private server of this test, SOCKET). Then, on its
// standard input: initialize, tools/call run_program echo, prompts/list;
// its replies must say the version, the program's output and completion,
// and the prompts. Standard input closed, it must exit 0.
//
// Environment: SOCKET (the private tmux server's socket).
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(process.argv[2]);
const m = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const fail = (why) => { console.log(`not ok - ${why}`); process.exit(1); };
const user = { socket_path: process.env.SOCKET };

if (m.server.type !== 'binary') fail(`server.type ${m.server.type}`);
accessSync(path.join(dir, m.server.entry_point), constants.X_OK);
const subst = (s) => s.replace(/\$\{__dirname\}/g, dir).replace(/\$\{user_config\.([a-z_]+)\}/g, (all, k) => {
  if (!(k in m.user_config)) fail(`${all} names no user_config entry`);
  return String(k in user ? user[k] : m.user_config[k].default);
});
const cfg = m.server.mcp_config;
const env = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
for (const [k, v] of Object.entries(cfg.env || {})) env[k] = subst(v);
const child = spawn(subst(cfg.command), (cfg.args || []).map(subst), { env, stdio: ['pipe', 'pipe', 'inherit'] });
let out = '';
child.stdout.on('data', (d) => { out += d; });
const lines = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcpb-test', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_program', arguments: { argv: ['echo', 'hello from the bundle'] } } },
  { jsonrpc: '2.0', id: 3, method: 'prompts/list', params: {} },
];
child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
const timer = setTimeout(() => { child.kill('SIGKILL'); fail('no exit within 30 s'); }, 30000);
child.on('exit', (code) => {
  clearTimeout(timer);
  const replies = Object.fromEntries(out.trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.id !== undefined).map((r) => [r.id, r]));
  const init = replies[1] && replies[1].result;
  if (!init || init.serverInfo.version !== m.version) fail(`initialize: ${JSON.stringify(replies[1])}`);
  const run = replies[2] && replies[2].result;
  if (!run || run.isError || run.structuredContent.outcome !== 'completed' ||
      !run.structuredContent.text.includes('hello from the bundle')) fail(`run_program: ${JSON.stringify(replies[2])}`);
  const p = replies[3] && replies[3].result;
  if (!p || !p.prompts.some((x) => x.name === 'run-and-check')) fail(`prompts/list: ${JSON.stringify(replies[3])}`);
  if (code !== 0) fail(`exit status ${code}`);
  console.log(`ok - ${path.basename(path.dirname(dir))}: progmux ${m.version} started from its manifest answers initialize, run_program and prompts/list, exits 0`);
});
