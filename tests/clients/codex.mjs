// codex.mjs — Codex: `codex mcp add`, the app-server's server status, one
// `codex exec --json` turn.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  bin, binDir, limit, PROMPT, TOOLS, sameTools, children, check, note, clientEnv, sh,
  jsonLines, lastScripted, checkStructured, place, healthLine
} from './common.mjs';

// Codex: `codex mcp add`, approval for progmux's tools in config.toml, the
// app-server's server status, one `codex exec --json` turn.
export async function codex(model) {
  const { home, work } = place('codex');
  const env = clientEnv(home, { SCRIPTED_API_KEY: 'dummy-key' });
  const x = path.join(binDir, 'codex');
  const add = await sh([x, 'mcp', 'add', 'progmux', '--env', 'PROGMUX_ROBUST=1',
    '--', bin], { env, cwd: work });
  check('codex: codex mcp add progmux', add.code === 0, add.stderr + add.stdout);
  const cfgFile = path.join(home, '.codex', 'config.toml');
  let cfg = existsSync(cfgFile) ? readFileSync(cfgFile, 'utf8') : '';
  // The documented per-server approval default; then the scripted model
  // as the provider, and no analytics or update check.
  cfg = cfg.replace(/^\[mcp_servers\.progmux\]\n/m,
    '$&default_tools_approval_mode = "approve"\n');
  cfg = `model = "scripted"
model_provider = "scripted"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.scripted]
name = "scripted"
base_url = "${model.url}/v1"
env_key = "SCRIPTED_API_KEY"
wire_api = "responses"

` + cfg;
  writeFileSync(cfgFile, cfg);
  check('codex: config.toml has default_tools_approval_mode under [mcp_servers.progmux]',
    cfg.includes('[mcp_servers.progmux]\ndefault_tools_approval_mode = "approve"\n'), cfg);

  const list = await sh([x, 'mcp', 'list'], { env, cwd: work });
  note(`codex mcp list: ${healthLine(list.stdout)}`);
  check('codex: codex mcp list shows progmux enabled',
    list.code === 0 && /^progmux\s+\S*progmux\s.*\benabled\b/m.test(list.stdout), list.stdout + list.stderr);
  // The app-server's status of every MCP server: it starts progmux and
  // lists its tools.
  const rpc = [
    { method: 'initialize', id: 0, params: { clientInfo: { name: 'progmux-test',
      title: 'progmux test', version: '0.0.0' } } },
    { method: 'initialized' },
    { method: 'mcpServerStatus/list', id: 1, params: {} },
  ];
  const status = await appServer(x, env, work, rpc);
  const srv = status && status.result && (status.result.data || []).find((s) => s.name === 'progmux');
  const tools = srv && srv.tools ? Object.keys(srv.tools) : [];
  note(`codex app-server mcpServerStatus/list: progmux ${srv ? srv.serverInfo && srv.serverInfo.version : 'absent'}, tools ${tools.join(',')}`);
  check(`codex: app-server mcpServerStatus/list shows progmux with its ${TOOLS.length} tools`,
    srv && sameTools(tools), JSON.stringify(status).slice(0, 400));

  const turn = await sh([x, 'exec', '--json', '--skip-git-repo-check', PROMPT],
    { env, cwd: work });
  const ev = jsonLines(turn.stdout);
  const done = {};
  for (const e of ev)
    if (e.type === 'item.completed' && e.item && e.item.type === 'mcp_tool_call' &&
        e.item.server === 'progmux')
      done[e.item.tool] = e.item;
  const sc = (t) => done[t] && done[t].result ?
    JSON.stringify(done[t].result.structured_content) : JSON.stringify(done[t] || null);
  checkStructured('codex (exec --json)', sc('run_program'), sc('start_program'),
    sc('read_program'));
  const said = ev.filter((e) => e.type === 'item.completed' && e.item &&
    e.item.type === 'agent_message').map((e) => e.item.text).join('');
  check('codex: the turn ends with the model\'s "finished"',
    turn.code === 0 && said === 'finished' && ev.some((e) => e.type === 'turn.completed'),
    `${turn.code} ${said} ${turn.stderr.slice(-300)}`);

  const last = lastScripted('responses');
  const calls = new Map();
  const sent = {};
  if (last)
    for (const it of last.body.input || []) {
      if (it.type === 'function_call') calls.set(it.call_id, it.name);
      if (it.type === 'function_call_output')
        sent[calls.get(it.call_id)] = typeof it.output === 'string' ? it.output :
          JSON.stringify(it.output);
    }
  check('codex: the model was sent three progmux tool results', last && last.step === 3,
    last ? `step ${last.step}` : 'no scripted request');
  checkStructured('codex (sent to the model)', sent.run_program, sent.start_program,
    sent.read_program);
}

// Talk to `codex app-server` over stdio: send each message, resolve the
// answer to the last request (id 1), then close its stdin.
function appServer(x, env, cwd, msgs) {
  return new Promise((resolve) => {
    const p = spawn(x, ['app-server'], { env, cwd, detached: true,
      stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(p);
    let buf = '';
    let answer = null;
    const timer = setTimeout(() => {
      try { process.kill(-p.pid, 'SIGKILL'); } catch (e) { /* gone */ }
    }, limit);
    p.stdout.on('data', (d) => {
      buf += d;
      for (const m of jsonLines(buf))
        if (m.id === 1 && !answer) {
          answer = m;
          p.stdin.end();
        }
    });
    p.stderr.resume();
    p.on('close', () => {
      clearTimeout(timer);
      children.delete(p);
      resolve(answer);
    });
    p.stdin.on('error', () => {});
    for (const m of msgs) p.stdin.write(JSON.stringify(m) + '\n');
  });
}
