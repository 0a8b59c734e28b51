// copilot.mjs — GitHub Copilot CLI against the scripted Chat Completions
// model.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  bin, binDir, PROMPT2, TOOLS, check, note, clientEnv, sh, jsonLines, place,
  healthLine, plain, checkPrompt, checkSent, progmuxLoud, readAll
} from './common.mjs';

// GitHub Copilot CLI: `copilot mcp add --env` (~/.copilot/mcp-config.json),
// `copilot mcp list` (it does not start servers), then one `copilot -p
// --output-format json --allow-tool progmux` turn, offline, against the
// scripted model as its provider (COPILOT_PROVIDER_BASE_URL); the stream
// says whether progmux connected and how many tools it gave.
export async function copilot(model) {
  const { home, work } = place('copilot');
  const env = clientEnv(home, {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`,
    COPILOT_PROVIDER_API_KEY: 'dummy-key',
    COPILOT_MODEL: 'scripted',
  });
  const c = path.join(binDir, 'copilot');
  const add = await sh([c, 'mcp', 'add', 'progmux', '--env', 'PROGMUX_ROBUST=1',
    '--', bin], { env, cwd: work });
  const cfgFile = path.join(home, '.copilot', 'mcp-config.json');
  const cfg = existsSync(cfgFile) ? JSON.parse(readFileSync(cfgFile, 'utf8')) : {};
  const entry = cfg.mcpServers && cfg.mcpServers.progmux;
  check('copilot: copilot mcp add progmux --env PROGMUX_ROBUST=1 wrote ~/.copilot/mcp-config.json',
    add.code === 0 && entry && entry.command === bin && entry.env.PROGMUX_ROBUST === '1',
    plain(add.stdout + add.stderr) + JSON.stringify(cfg));
  const list = await sh([c, 'mcp', 'list'], { env, cwd: work });
  note(`copilot mcp list: ${healthLine(plain(list.stdout))}`);
  check('copilot: copilot mcp list lists progmux', list.code === 0 &&
    /progmux \(local\)/.test(plain(list.stdout)), plain(list.stdout + list.stderr));

  // Without --allow-tool, -p refuses every call of progmux's.
  const denied = jsonLines((await sh([c, '-p', PROMPT2, '--output-format', 'json'],
    { env, cwd: work })).stdout).filter((e) => e.type === 'tool.execution_complete');
  check('copilot: without --allow-tool progmux its -p mode refuses the calls ("Permission denied")',
    denied.length > 0 && denied.every((e) => !e.data.success) &&
    /Permission denied/i.test(JSON.stringify(denied[0])), JSON.stringify(denied[0] || null).slice(0, 300));
  const turn = await sh([c, '-p', PROMPT2, '--output-format', 'json',
    '--allow-tool', 'progmux'], { env, cwd: work });
  const ev = jsonLines(turn.stdout);
  const up = ev.find((e) => e.type === 'session.mcp_server_status_changed' &&
    e.data.serverName === 'progmux' && e.data.status === 'connected');
  const loaded = ev.find((e) => e.type === 'session.mcp_server_tools_loaded' &&
    e.data.serverName === 'progmux');
  note(`copilot -p --output-format json: progmux ${up ? up.data.status : 'not connected'}, toolCount ${loaded ? loaded.data.toolCount : 'none'}`);
  check(`copilot: its json stream says progmux connected with its ${TOOLS.length} tools`,
    up && loaded && loaded.data.toolCount === TOOLS.length, plain(turn.stderr).slice(-300));
  const names = new Map();
  const results = {};
  for (const e of ev) {
    if (e.type === 'tool.execution_start' && e.data.mcpServerName === 'progmux')
      names.set(e.data.toolCallId, e.data.mcpToolName);
    if (e.type === 'tool.execution_complete' && names.has(e.data.toolCallId) &&
        e.data.success)
      results[names.get(e.data.toolCallId)] = e.data.result.content;
  }
  checkPrompt('copilot', 'json stream', results);
  const said = ev.filter((e) => e.type === 'assistant.message').map((e) => e.data.content).join('');
  const end = ev.find((e) => e.type === 'result');
  check('copilot: the turn ends with the model\'s "finished"',
    turn.code === 0 && end && end.exitCode === 0 && said === 'finished',
    `${turn.code} ${said} ${plain(turn.stderr).slice(-300)}`);
  const loud = progmuxLoud(turn.stdout + turn.stderr +
    readAll(path.join(home, '.copilot', 'logs')));
  check('copilot: no warning from progmux in its output or logs', loud.length === 0,
    loud.join(' | '));
  checkSent('copilot');
}
