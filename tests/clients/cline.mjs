// cline.mjs — Cline's CLI against the scripted Chat Completions model.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  bin, binDir, TOOLS, run, PROMPT2, check, note, clientEnv, sh, jsonLines,
  modelLog, place, waitFor, plain, checkPrompt, checkSent, progmuxLoud,
  readAll, leftovers
} from './common.mjs';

// Run `cline config` (a terminal UI only) in a pane of a private tmux
// server of this run (its own socket, no config file), switch to its MCP
// tab and return the line about progmux (or what the screen showed),
// waiting for each screen with a bounded deadline; the server is killed.
async function clineConfigTui(c, env, cwd) {
  const sock = path.join(run, 'cline-tui.sock');
  const tmux = (args) => sh(['tmux', '-S', sock, '-f', '/dev/null'].concat(args), { env, cwd });
  const screen = async () => plain((await tmux(['capture-pane', '-p', '-t', '%0'])).stdout);
  const waitFor = async (re, ms) => {
    const deadline = Date.now() + ms;
    let s = await screen();
    while (!re.test(s) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      s = await screen();
    }
    return s;
  };
  await tmux(['new-session', '-d', '-x', '160', '-y', '45', '--', c, 'config']);
  let s = await waitFor(/General\s+MCP/, 30000);
  if (/General\s+MCP/.test(s)) {
    await tmux(['send-keys', '-t', '%0', 'Right']);
    s = await waitFor(/progmux\s+stdio/, 20000);
  }
  await tmux(['kill-server']);
  return (s.split('\n').find((l) => /progmux\s+stdio/.test(l)) ||
    s.replace(/\s+/g, ' ').slice(0, 300)).trim();
}

// Cline: `cline mcp install progmux --yes` (it has no env flag: the env
// goes by hand under transport.env in
// ~/.cline/data/settings/cline_mcp_settings.json, as its docs say),
// `cline auth --provider openai-compatible`, one `cline --json` turn
// (auto-approve is its default). Its health is only in the `cline
// config` TUI, which is read in a private tmux server's pane. It leaves a hub daemon running after the turn; that is
// ended by its PID once everything else of the turn (progmux) is gone.
export async function cline(model) {
  const { home, work } = place('cline');
  const env = clientEnv(home, { CLINE_NO_AUTO_UPDATE: '1',
    CLINE_DISABLE_CLINE_PASS_NOTICE: '1' });
  const c = path.join(binDir, 'cline');
  const add = await sh([c, 'mcp', 'install', 'progmux', '--yes', '--', bin],
    { env, cwd: work });
  const cfgFile = path.join(home, '.cline', 'data', 'settings', 'cline_mcp_settings.json');
  const cfg = existsSync(cfgFile) ? JSON.parse(readFileSync(cfgFile, 'utf8')) : {};
  const entry = cfg.mcpServers && cfg.mcpServers.progmux;
  check('cline: cline mcp install progmux --yes wrote a stdio transport',
    add.code === 0 && entry && entry.transport && entry.transport.type === 'stdio' &&
    entry.transport.command === bin, plain(add.stdout + add.stderr) + JSON.stringify(cfg));
  entry.transport.env = { PROGMUX_ROBUST: '1' };
  writeFileSync(cfgFile, JSON.stringify(cfg, null, 2));
  const tui = await clineConfigTui(c, env, work);
  note(`cline config (its TUI, MCP tab): ${tui}`);
  check('cline: its cline config TUI lists progmux on its MCP tab', /progmux\s+stdio/.test(tui), tui);
  const auth = await sh([c, 'auth', '--provider', 'openai-compatible', '--baseurl',
    `${model.url}/v1`, '--apikey', 'dummy-key', '--modelid', 'scripted'], { env, cwd: work });
  check('cline: cline auth --provider openai-compatible --baseurl ... --modelid scripted',
    auth.code === 0, plain(auth.stdout + auth.stderr));
  const before = modelLog().length;

  const turn = await sh([c, '--json', PROMPT2], { env, cwd: work });
  const ev = jsonLines(turn.stdout);
  const results = {};
  for (const e of ev) {
    const a = e.type === 'agent_event' ? e.event : null;
    if (a && a.type === 'content_end' && a.contentType === 'tool') {
      const t = TOOLS.find((n) => a.toolName === `progmux__${n}`);
      if (t) results[t] = a.output;
    }
  }
  checkPrompt('cline', '--json', results);
  const end = ev.find((e) => e.type === 'run_result');
  check('cline: the turn ends with the model\'s "finished"',
    turn.code === 0 && end && end.finishReason === 'completed' && end.text === 'finished',
    end ? JSON.stringify(end).slice(0, 300) : plain(turn.stderr).slice(-300));
  // Its hub daemon: a process of this run started with --cline-hub-daemon.
  const hubs = () => leftovers(model.proc.pid).filter((l) => / --cline-hub-daemon /.test(l))
    .map((l) => Number(l.split(' ')[0]));
  const deadline = Date.now() + 15000;
  let left = leftovers([model.proc.pid].concat(hubs()));
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = leftovers([model.proc.pid].concat(hubs()));
  }
  check('cline: once the turn is over nothing is left but its hub daemon (no progmux)',
    left.length === 0, left.join('; '));
  for (const hub of hubs()) {
    note(`cline left its hub daemon running (pid ${hub}); ending it`);
    try { process.kill(hub, 'SIGTERM'); } catch (e) { /* gone */ }
  }
  const loud = progmuxLoud(turn.stdout + turn.stderr +
    readAll(path.join(home, '.cline', 'data', 'logs')));
  check('cline: no warning from progmux in its output or logs', loud.length === 0,
    loud.join(' | '));
  check('cline: it asked the model', modelLog().length > before, 'no request');
  checkSent('cline');
}
