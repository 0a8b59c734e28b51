// opencode.mjs — opencode and its fork Kilo: `X mcp add`, `X mcp list`,
// one `X run --format json` turn against the scripted Chat Completions
// model.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  bin, command, binDir, TOOLS, run, PROMPT2, check, note, clientEnv, sh,
  jsonLines, place, healthLine, plain, checkPrompt, checkSent
} from './common.mjs';

// opencode and its fork Kilo: `X mcp add --env`, the scripted model as an
// @ai-sdk/openai-compatible provider in the config file the add wrote,
// `X mcp list`, one `X run --format json` turn. exe is the command, dir
// the config directory under XDG_CONFIG_HOME, ENV the variable prefix.
async function opencodeLike(who, exe, dir, ENV, model, more = []) {
  const { home, work } = place(who);
  const off = {};
  for (const v of ['DISABLE_AUTOUPDATE', 'DISABLE_MODELS_FETCH', 'DISABLE_LSP_DOWNLOAD',
    'DISABLE_SHARE', 'DISABLE_DEFAULT_PLUGINS', 'DISABLE_CLAUDE_CODE'].concat(more))
    off[`${ENV}_${v}`] = '1';
  const env = clientEnv(home, off);
  const x = path.join(binDir, exe);
  const add = await sh([x, 'mcp', 'add', 'progmux', '--env', 'PROGMUX_ROBUST=1',
    '--', bin], { env, cwd: work });
  const cfgFile = path.join(home, '.config', dir, `${dir}.jsonc`);
  check(`${who}: ${exe} mcp add progmux --env PROGMUX_ROBUST=1 wrote ${dir}.jsonc`,
    add.code === 0 && existsSync(cfgFile), plain(add.stdout + add.stderr));
  const cfg = JSON.parse(readFileSync(cfgFile, 'utf8'));
  const entry = cfg.mcp && cfg.mcp.progmux;
  check(`${who}: the entry is a local command with PROGMUX_ROBUST in its environment`,
    entry && entry.type === 'local' && entry.command[0] === bin &&
    entry.environment.PROGMUX_ROBUST === '1', JSON.stringify(cfg));
  Object.assign(cfg, {
    provider: { scripted: { npm: '@ai-sdk/openai-compatible', name: 'scripted',
      options: { baseURL: `${model.url}/v1`, apiKey: 'dummy-key' },
      models: { scripted: { name: 'scripted' } } } },
    model: 'scripted/scripted',
    autoupdate: false,
    share: 'disabled',
  });
  writeFileSync(cfgFile, JSON.stringify(cfg, null, 2));

  // progmux's warnings reach the client as notifications/message, which
  // it logs as "MCP server log", and Kilo logs progmux's stderr as "mcp
  // stderr"; a normal exit has neither a warning nor an error.
  const loud = (r) => plain(r.stderr).split('\n').filter((l) =>
    (/MCP server log/.test(l) && /server=progmux/.test(l) && /level=(warning|error)/.test(l)) ||
    (/mcp stderr/.test(l) && /key=progmux/.test(l) && /warning|error/i.test(l)));
  const list = await sh([x, 'mcp', 'list', '--print-logs', '--log-level', 'DEBUG'],
    { env, cwd: work });
  const said = plain(list.stdout);
  note(`${exe} mcp list: ${healthLine(said)}`);
  check(`${who}: ${exe} mcp list says progmux is connected`,
    list.code === 0 && /progmux\s+connected/.test(said), said + plain(list.stderr).slice(-300));
  check(`${who}: no warning from progmux in ${exe} mcp list's log`, loud(list).length === 0,
    loud(list).join(' | '));

  const turn = await sh([x, 'run', '--print-logs', '--log-level', 'DEBUG',
    '--format', 'json', PROMPT2], { env, cwd: work });
  const ev = jsonLines(turn.stdout);
  const results = {};
  for (const e of ev)
    if (e.type === 'tool_use' && e.part && e.part.state) {
      const t = TOOLS.find((n) => e.part.tool === `progmux_${n}`);
      if (t && e.part.state.status === 'completed') results[t] = e.part.state.output;
    }
  checkPrompt(who, 'run --format json', results);
  const text = ev.filter((e) => e.type === 'text').map((e) => e.part.text).join('');
  check(`${who}: the turn ends with the model's "finished"`,
    turn.code === 0 && text === 'finished', `${turn.code} ${text} ${plain(turn.stderr).slice(-300)}`);
  check(`${who}: no warning from progmux in ${exe} run's log`, loud(turn).length === 0,
    loud(turn).join(' | '));
  checkSent(who);
}

// opencode.
export function opencode(model) {
  return opencodeLike('opencode', 'opencode', 'opencode', 'OPENCODE', model);
}

// Kilo, opencode's fork: the same commands as kilo, kilo.jsonc, KILO_*;
// also no session upload, presence or codebase indexing.
export function kilo(model) {
  return opencodeLike('kilo', 'kilo', 'kilo', 'KILO', model,
    ['DISABLE_SESSION_INGEST', 'DISABLE_PRESENCE', 'DISABLE_CODEBASE_INDEXING']);
}
