// qwen.mjs — Qwen Code against the scripted Chat Completions model.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  bin, binDir, TOOLS, PROMPT2, check, note, clientEnv, sh, jsonLines,
  modelLog, place, healthLine, plain, checkPrompt, checkSent, progmuxLoud
} from './common.mjs';

// Qwen Code: `qwen mcp add --scope user --trust -e`, alwaysLoadTools on
// the entry (else MCP tools hide behind tool_search), `qwen mcp list`,
// one `qwen -p --output-format stream-json --auth-type openai` turn with
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL.
export async function qwen(model) {
  const { home, work } = place('qwen');
  const env = clientEnv(home, {
    OPENAI_BASE_URL: `${model.url}/v1`,
    OPENAI_API_KEY: 'dummy-key',
    OPENAI_MODEL: 'scripted',
  });
  const q = path.join(binDir, 'qwen');
  const add = await sh([q, 'mcp', 'add', '--scope', 'user', '--trust', '-e',
    'PROGMUX_ROBUST=1', 'progmux', bin], { env, cwd: work });
  const settingsFile = path.join(home, '.qwen', 'settings.json');
  check('qwen: qwen mcp add --scope user --trust -e PROGMUX_ROBUST=1 progmux',
    add.code === 0 && existsSync(settingsFile), plain(add.stdout + add.stderr));
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  const entry = settings.mcpServers && settings.mcpServers.progmux;
  check('qwen: the entry in ~/.qwen/settings.json is trusted, with PROGMUX_ROBUST',
    entry && entry.command === bin && entry.trust === true &&
    entry.env.PROGMUX_ROBUST === '1', JSON.stringify(settings));
  Object.assign(settings, {
    telemetry: { enabled: false },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
  });
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  // Without alwaysLoadTools the model is not offered its MCP tools, only
  // tool_search and tool_call to reach them.
  const from = modelLog().length;
  const hid = await sh([q, '-p', 'Say ok.', '--output-format', 'stream-json',
    '--auth-type', 'openai'], { env, cwd: work });
  const offered = new Set();
  for (const r of modelLog().slice(from))
    for (const t of r.body.tools || []) offered.add(t.function ? t.function.name : t.name);
  check('qwen: without alwaysLoadTools the model is offered tool_search, not progmux\'s tools',
    hid.code === 0 && offered.has('tool_search') &&
    ![...offered].some((t) => t.startsWith('mcp__progmux__')),
    [...offered].join(',') + plain(hid.stderr).slice(-300));
  entry.alwaysLoadTools = true;
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));

  const list = await sh([q, 'mcp', 'list'], { env, cwd: work });
  const said = plain(list.stdout + list.stderr);
  note(`qwen mcp list: ${healthLine(said)}`);
  check('qwen: qwen mcp list says progmux is connected',
    list.code === 0 && /progmux: .*- Connected/.test(said), said);

  const turn = await sh([q, '-p', PROMPT2, '--output-format', 'stream-json',
    '--auth-type', 'openai'], { env, cwd: work });
  const ev = jsonLines(turn.stdout);
  const init = ev.find((e) => e.type === 'system' && e.subtype === 'init');
  check('qwen: with alwaysLoadTools the session offers progmux\'s tools as mcp__progmux__<tool>',
    init && TOOLS.every((t) => init.tools.includes(`mcp__progmux__${t}`)),
    init ? init.tools.join(',') : plain(turn.stderr).slice(-300));
  const names = new Map();
  const results = {};
  for (const e of ev)
    for (const b of e.message && Array.isArray(e.message.content) ? e.message.content : []) {
      if (b.type === 'tool_use') names.set(b.id, b.name);
      if (b.type === 'tool_result') {
        const t = (names.get(b.tool_use_id) || '').replace('mcp__progmux__', '');
        results[t] = typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
      }
    }
  checkPrompt('qwen', 'stream-json', results);
  const end = ev.find((e) => e.type === 'result');
  check('qwen: the turn ends with the model\'s "finished"',
    turn.code === 0 && end && end.subtype === 'success' && end.result === 'finished',
    end ? JSON.stringify(end).slice(0, 300) : plain(turn.stderr).slice(-300));
  const loud = progmuxLoud(turn.stdout + turn.stderr + list.stdout + list.stderr);
  check('qwen: no warning from progmux in its output', loud.length === 0, loud.join(' | '));
  checkSent('qwen');
}
