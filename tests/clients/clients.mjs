// clients.mjs — progmux through the real agent clients, set up as their
// users set them up.
//
// For each client: a throwaway HOME, XDG directories and working
// directory, progmux added with the client's own command (robust mode: a
// private tmux server that dies with progmux, never the machine's default
// one), the client's own health check where it has one, then one headless
// agent turn against the scripted model (model.mjs) on 127.0.0.1.
//
// Claude Code, Gemini CLI and Codex speak their own APIs: the model asks
// for run_program ["echo","hi"], start_program, read_program (Gemini: with
// its wait_for_previous field) and then ends with "finished". opencode,
// Kilo, Qwen Code, GitHub Copilot CLI and Cline speak OpenAI Chat
// Completions: the model starts a program that prints the prompt "name? "
// and reads a line, reads it (read_program returns once it waits for
// input), answers it with one send_keys carrying timeoutMs (whose reply is
// the program's "hello progmux" and its end), and ends with "finished".
// Each turn is checked twice: in the client's own output, and in the tool
// results the client sent back to the model (model.mjs logs every
// request); what each client sent is printed as a "#" line. progmux's
// warnings, as each client shows them (its stderr, notifications/message
// in the client's log), must be absent: a normal exit is quiet. The MCP
// Inspector CLI's tools/list is checked too.
//
// No key and no network beyond 127.0.0.1: dummy keys, update checks,
// telemetry and analytics off. Every process started here is ended by its
// PID (each client runs in its own process group); nothing a client
// started may be left once it exits (Cline's hub daemon, which it leaves
// by design, is ended by its PID once everything else is seen gone); the
// temporary directory is removed. Prints one line per check and "N
// passed, M failed"; exits 1 on any failure.
//
// Environment: PROGMUX_BIN (absolute path of progmux), PROGMUX_COMMAND (a
// JSON array: the command Claude Code is given instead, such as
// ["npx","-y","progmux"]; PROGMUX_BIN then names the binary it runs, which
// the clean-up looks for), CLIENTS_DIR (where
// `npm install` put the clients: build/clients), CLIENT_TIMEOUT_MS (each
// client command, default 120000), CLIENTS (a comma-separated list of
// client names to run, default all).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync,
  readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const bin = path.resolve(process.env.PROGMUX_BIN || path.join(root, 'build/progmux'));
const reaper = path.join(path.dirname(bin), 'progmux-reaper');
const command = process.env.PROGMUX_COMMAND ? JSON.parse(process.env.PROGMUX_COMMAND) : [bin];
const clientsDir = path.resolve(process.env.CLIENTS_DIR || path.join(root, 'build/clients'));
const binDir = path.join(clientsDir, 'node_modules', '.bin');
const limit = Number(process.env.CLIENT_TIMEOUT_MS || 120000);
const PROMPT = 'Run echo hi with progmux, then start a program and read it.';
const TOOLS = ['run_program', 'start_program', 'read_program', 'stop_program',
  'send_keys', 'capture_pane', 'list_programs'];

let passed = 0;
let failed = 0;
const run = mkdtempSync(path.join(tmpdir(), 'progmux-clients-'));
const children = new Set();

// Record one check as one line.
function check(name, ok, why) {
  if (ok) {
    passed++;
    console.log(`ok - ${name}`);
  } else {
    failed++;
    console.log(`FAIL - ${name}${why ? ': ' + String(why).replace(/\s+/g, ' ').slice(0, 600) : ''}`);
  }
  return ok;
}

// Print a line that is not a check (what a client said).
function note(s) {
  console.log(`# ${s}`);
}

// The environment every client gets: the machine's, less anything that
// could reach a real account or a real tmux server, plus this client's
// HOME, a TMPDIR inside the run directory and the switches that keep it
// off the network.
function clientEnv(home, extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(ANTHROPIC_|CLAUDE|OPENAI_|CODEX_|GEMINI_|GOOGLE_|TMUX|PROGMUX_|LIBTMUX_)/.test(k))
      env[k] = v;
  Object.assign(env, {
    HOME: home,
    TMPDIR: path.join(run, 'tmp'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    NO_COLOR: '1',
    CI: '1',
  }, extra);
  delete env.XDG_RUNTIME_DIR;
  return env;
}

// Run argv with env in cwd, in its own process group; resolve {code,
// stdout, stderr}. Past `limit` the group is sent SIGKILL by its PID.
function sh(argv, { env, cwd, input }) {
  return new Promise((resolve) => {
    const p = spawn(argv[0], argv.slice(1), { env, cwd, detached: true,
      stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(p);
    let out = '';
    let err = '';
    let timedOut = false;
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-p.pid, 'SIGKILL'); } catch (e) { /* gone */ }
    }, limit);
    p.on('error', (e) => { err += String(e); });
    p.on('close', (code) => {
      clearTimeout(timer);
      children.delete(p);
      resolve({ code: timedOut ? 'timeout' : code, stdout: out, stderr: err });
    });
    // A command that exits at once (tmux new-session -d) may close its
    // stdin before we end it: EPIPE there is no failure of ours.
    p.stdin.on('error', () => {});
    p.stdin.end(input || '');
  });
}

// Parse newline-delimited JSON, skipping lines that are not JSON.
function jsonLines(s) {
  const out = [];
  for (const l of s.split('\n')) {
    if (!l.trim().startsWith('{')) continue;
    try { out.push(JSON.parse(l)); } catch (e) { /* not JSON */ }
  }
  return out;
}

// The model server's log: one record per request.
function modelLog() {
  const f = path.join(run, 'model.log');
  return existsSync(f) ? jsonLines(readFileSync(f, 'utf8')) : [];
}

// The last scripted request of one API, or null.
function lastScripted(api) {
  const recs = modelLog().filter((r) => r.api === api && typeof r.step === 'number');
  return recs.length ? recs[recs.length - 1] : null;
}

// A tool result as progmux's structured JSON, or null.
function asJson(s) {
  if (typeof s !== 'string') return null;
  const i = s.indexOf('{');
  if (i < 0) return null;
  try { return JSON.parse(s.slice(i)); } catch (e) { return null; }
}

// Checks on run_program's and read_program's structured results (Claude
// Code and Codex give the model the structuredContent JSON).
function checkStructured(who, run_, start, read) {
  const r = asJson(run_);
  check(`${who}: run_program echo hi returned text "hi" and exitStatus 0`,
    r && r.text === 'hi\n' && r.exitStatus === 0 && r.outcome === 'completed', run_);
  const s = asJson(start);
  check(`${who}: start_program returned a programId`,
    s && typeof s.programId === 'string' && /^%\d+$/.test(s.paneId || ''), start);
  const d = asJson(read);
  check(`${who}: read_program returned the program's first line "started"`,
    d && /^started\n/.test(d.text || '') && typeof d.cursor === 'number', read);
}

// Start the scripted model and wait (bounded) for its port.
async function startModel() {
  const portFile = path.join(run, 'port');
  const p = spawn(process.execPath, [path.join(here, 'model.mjs'),
    path.join(run, 'model.log'), portFile], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.add(p);
  p.on('close', () => children.delete(p));
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    if (existsSync(portFile) && readFileSync(portFile, 'utf8')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = existsSync(portFile) ? readFileSync(portFile, 'utf8') : '';
  if (!check('scripted model listens on 127.0.0.1', /^\d+$/.test(port)))
    throw new Error('no model server');
  return { proc: p, url: `http://127.0.0.1:${port}` };
}

// A fresh HOME and working directory for one client.
function place(name) {
  const home = path.join(run, name, 'home');
  const work = path.join(run, name, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  return { home, work };
}

// The client's line about progmux in its own list output.
function healthLine(s) {
  return (s.split('\n').find((l) => l.includes('progmux')) || '').trim();
}

// ---- Claude Code -------------------------------------------------------------

// Claude Code: `claude mcp add -s user` (every project, as the README
// says), `claude mcp list`, one `claude -p` turn.
async function claude(model) {
  const { home, work } = place('claude');
  const env = clientEnv(home, {
    ANTHROPIC_API_KEY: 'dummy-key',
    ANTHROPIC_BASE_URL: model.url,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: '1',
  });
  const c = path.join(binDir, 'claude');
  // progmux's debug log (PROGMUX_DEBUG) goes to a file of ours: it
  // names the era of each request it takes and each message as it came.
  const debugLog = path.join(home, 'progmux-debug.log');
  const add = await sh([c, 'mcp', 'add', '-s', 'user', 'progmux', '-e',
    'PROGMUX_ROBUST=1', '-e', 'PROGMUX_DEBUG=1', '--', '/bin/sh', '-c',
    'exec "$@" 2>>"$0"', debugLog, ...command], { env, cwd: work });
  check('claude: claude mcp add -s user progmux', add.code === 0, add.stderr + add.stdout);
  const list = await sh([c, 'mcp', 'list'], { env, cwd: work });
  note(`claude mcp list: ${healthLine(list.stdout)}`);
  check('claude: claude mcp list says progmux is connected',
    list.code === 0 && /^progmux: .*Connected/m.test(list.stdout), list.stdout + list.stderr);

  const before = modelLog().length;
  const turn = await sh([c, '-p', PROMPT, '--output-format', 'stream-json',
    '--verbose', '--allowedTools', 'mcp__progmux'], { env, cwd: work });
  const ev = jsonLines(turn.stdout);
  const init = ev.find((e) => e.type === 'system' && e.subtype === 'init');
  check('claude: the session offers progmux\'s tools',
    init && TOOLS.every((t) => init.tools.includes(`mcp__progmux__${t}`)),
    init ? init.tools.join(',') : turn.stderr);
  // Its own stream: each tool_use and the tool_result that answered it.
  const names = new Map();
  const results = {};
  for (const e of ev) {
    const content = e.message && Array.isArray(e.message.content) ? e.message.content : [];
    for (const b of content) {
      if (b.type === 'tool_use') names.set(b.id, b.name);
      if (b.type === 'tool_result') {
        const t = (names.get(b.tool_use_id) || '').replace('mcp__progmux__', '');
        results[t] = typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
      }
    }
  }
  checkStructured('claude (stream-json)', results.run_program,
    results.start_program, results.read_program);
  const end = ev.find((e) => e.type === 'result');
  check('claude: the turn ends with the model\'s "finished"',
    turn.code === 0 && end && end.subtype === 'success' && end.result === 'finished',
    end ? JSON.stringify(end).slice(0, 300) : turn.stderr);
  // What it sent back to the model.
  const last = lastScripted('anthropic');
  const used = new Map();
  const sent = {};
  if (last && modelLog().length > before)
    for (const m of last.body.messages || [])
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (b.type === 'tool_use') used.set(b.id, b.name);
        if (b.type === 'tool_result')
          sent[(used.get(b.tool_use_id) || '').replace('mcp__progmux__', '')] =
            typeof b.content === 'string' ? b.content :
              (b.content || []).map((x) => x.text || '').join('');
      }
  check('claude: the model was sent three progmux tool results', last && last.step === 3,
    last ? `step ${last.step}` : 'no scripted request');
  checkStructured('claude (sent to the model)', sent.run_program,
    sent.start_program, sent.read_program);
  const log = debugLines(debugLog);
  const came = log.filter((l) => / in: /.test(l)).map((l) => l.replace(/^.* in: /, ''));
  const discover = came.find((l) => /"method":"server\/discover"/.test(l));
  note(`claude sent (progmux's debug log): ${discover}`);
  checkModern('claude', log, came, discover);
  // Through a package's command (make npm-test) the one headless turn is
  // what is asked; the interactive tasks session is make test-clients'.
  if (!process.env.PROGMUX_COMMAND)
    await claudeTasks(env, c, home, work);
}

// progmux's debug log, as lines ([] if it wrote none).
function debugLines(file) {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
}

// What progmux's debug log says of the era Claude Code spoke: it sent
// server/discover first (no initialize) and its requests were taken in
// the 2026-07-28 era.
function checkModern(who, log, came, discover) {
  check(`${who}: progmux's debug log: server/discover came first, in the 2026-07-28 era`,
    came.length > 0 && came[0] === discover && log.some((l) =>
      /request \S+: server\/discover \(2026-07-28\)/.test(l)), came.slice(0, 2).join(' | '));
  check(`${who}: progmux's debug log: no initialize; tools/list and tools/call were 2026-07-28 requests`,
    !came.some((l) => /"method":"initialize"/.test(l)) &&
    log.some((l) => /request \S+: tools\/list \(2026-07-28\)/.test(l)) &&
    log.some((l) => /request \S+: tools\/call \(2026-07-28\)/.test(l)),
    log.filter((l) => / request /.test(l)).slice(0, 6).join(' | '));
}

// A client typed into as a person would: in a pane of a private tmux
// server (tmux -S sock, in the run directory; never the default server)
// running argv with env. run: a tmux command on that server; screen:
// what the pane shows; type: text then Enter; waitFor: pred true within
// ms (polled every 250 ms), or false.
function paneClient(sock, env, cwd) {
  const tmux = (...a) => sh(['tmux', '-S', sock, ...a], { env, cwd });
  return {
    run: tmux,
    start: (argv) => tmux('-f', '/dev/null', 'new-session', '-d', '-x', '160', '-y', '50',
      '-c', cwd, 'env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv),
    screen: async () => (await tmux('capture-pane', '-p', '-J')).stdout,
    type: async (text) => {
      await tmux('send-keys', '-l', text);
      await new Promise((r) => setTimeout(r, 500));
      await tmux('send-keys', 'Enter');
    },
  };
}

// Whether pred() (async) holds within ms, looking every 250 ms.
async function waitFor(pred, ms) {
  const end = Date.now() + ms;
  for (;;) {
    if (await pred()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

// Claude Code runs an MCP call as a task of the 2026-07-28 tasks
// extension only in an interactive session (its -p mode never does), so
// this turn is typed into claude running in a pane of a private tmux
// server (tmux -S in the run directory, never the default one), its
// first-run questions answered in ~/.claude.json as a person's first
// start would. The prompt asks for the slow step too: run_program of a
// 20-second program, which Claude Code sends with the tasks extension in
// its capabilities; progmux makes it a task, Claude Code polls tasks/get
// and, once the task completes, tells the model its result.
async function claudeTasks(env, c, home, work) {
  const debugLog = path.join(home, 'progmux-tasks-debug.log');
  const sock = path.join(run, 'claude-tmux.sock');
  const cfgFile = path.join(home, '.claude.json');
  const cfg = JSON.parse(readFileSync(cfgFile, 'utf8'));
  Object.assign(cfg, { hasCompletedOnboarding: true, theme: 'dark',
    customApiKeyResponses: { approved: [env.ANTHROPIC_API_KEY], rejected: [] } });
  cfg.projects = { ...cfg.projects, [work]: { ...(cfg.projects || {})[work],
    hasTrustDialogAccepted: true } };
  cfg.mcpServers.progmux.args = cfg.mcpServers.progmux.args.map((a) =>
    a.endsWith('progmux-debug.log') ? debugLog : a);
  writeFileSync(cfgFile, JSON.stringify(cfg));
  const before = modelLog().length;
  const pc = paneClient(sock, env, work);
  const { screen } = pc;
  const up = await pc.start([c, '--allowedTools', 'mcp__progmux']);
  check('claude (interactive): starts in a pane of a private tmux server', up.code === 0, up.stderr);
  // Typed once the prompt shows and progmux's tools are listed.
  const ready = await waitFor(async () => /❯/.test(await screen()) &&
    debugLines(debugLog).some((l) => /request \S+: tools\/list /.test(l)), 30000);
  check('claude (interactive): shows its prompt, progmux connected', ready, await screen());
  await new Promise((r) => setTimeout(r, 1000));
  await pc.type(`${PROMPT.replace(/\.$/, '')}, then a slow one.`);
  // The model is told the slow run's result once its task completes.
  const told = () => modelLog().slice(before).find((r) =>
    r.api === 'anthropic' && JSON.stringify(r.body.messages || []).includes('slow\\\\nslept'));
  const got = await waitFor(async () => told() !== undefined, 90000);
  const shown = await screen();
  await pc.run('kill-server');
  const r = told();
  const msg = r ? JSON.stringify(r.body.messages) : '';
  check('claude (interactive): the 20-second run_program\'s result reached the model: "slow", "slept", exit status 0',
    got && msg.includes('\\"text\\":\\"slow\\\\nslept\\\\n\\"') && msg.includes('\\"exitStatus\\":0'),
    shown.slice(-600));
  check('claude (interactive): it came as the completion of an MCP task',
    /MCP task [0-9a-f]{32} \(progmux\/run_program\) completed/.test(msg), shown.slice(-600));
  const log = debugLines(debugLog);
  if (process.env.CLAUDE_DEBUG_COPY) writeFileSync(process.env.CLAUDE_DEBUG_COPY, log.join('\n'));
  const came = log.filter((l) => / in: /.test(l)).map((l) => l.replace(/^.* in: /, ''));
  checkModern('claude (interactive)', log, came,
    came.find((l) => /"method":"server\/discover"/.test(l)));
  const made = log.map((l) => / task ([0-9a-f]{32}) for a modern call/.exec(l)).find(Boolean);
  const call = made && came.find((l) => /"method":"tools\/call"/.test(l) && l.includes('sleep 20'));
  const polled = made && came.find((l) => /"method":"tasks\/get"/.test(l) && l.includes(made[1]));
  if (polled) note(`claude sent (progmux's debug log): ${polled}`);
  check('claude (interactive): progmux\'s debug log: the slow run_program declared the tasks extension, became a task, tasks/get polled it, it completed',
    made && call && call.includes('"io.modelcontextprotocol/tasks"') && polled &&
    log.some((l) => l.includes(`task ${made[1]} completed`)),
    log.filter((l) => / task /.test(l)).join(' | ') || 'no task');
}

// ---- Gemini CLI --------------------------------------------------------------

// Gemini CLI: `gemini mcp add --trust`, the folder trusted as its dialog
// does, `gemini mcp list`, one `gemini -p` turn.
async function gemini(model) {
  const { home, work } = place('gemini');
  const env = clientEnv(home, {
    GEMINI_API_KEY: 'dummy-key',
    GOOGLE_GEMINI_BASE_URL: model.url,
  });
  const g = path.join(binDir, 'gemini');
  const add = await sh([g, 'mcp', 'add', '--scope', 'user', '--trust', '-e',
    'PROGMUX_ROBUST=1', 'progmux', bin], { env, cwd: work });
  check('gemini: gemini mcp add --trust progmux', add.code === 0, add.stderr + add.stdout);
  // What the trust dialog writes for "Trust folder", and no telemetry,
  // usage statistics or update checks.
  const dir = path.join(home, '.gemini');
  writeFileSync(path.join(dir, 'trustedFolders.json'),
    JSON.stringify({ [work]: 'TRUST_FOLDER' }, null, 2));
  const settingsFile = path.join(dir, 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  Object.assign(settings, {
    telemetry: { enabled: false },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    security: { auth: { selectedType: 'gemini-api-key' } },
  });
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));

  // It prints its list on standard error.
  const list = await sh([g, 'mcp', 'list'], { env, cwd: work });
  const said = list.stdout + list.stderr;
  note(`gemini mcp list: ${healthLine(said)}`);
  check('gemini: gemini mcp list says progmux is connected',
    list.code === 0 && /^\S+ progmux: .*- Connected$/m.test(said), said);

  const turn = await sh([g, '-p', PROMPT, '--output-format', 'stream-json'],
    { env, cwd: work });
  const ev = jsonLines(turn.stdout);
  const names = new Map();
  const results = {};
  const calls = {};
  for (const e of ev) {
    if (e.type === 'tool_use') {
      const t = TOOLS.find((x) => e.tool_name.endsWith(x)) || e.tool_name;
      names.set(e.tool_id, t);
      calls[t] = e.parameters;
    }
    if (e.type === 'tool_result') results[names.get(e.tool_id)] = e;
  }
  const out = (t) => results[t] ? results[t].output : undefined;
  check('gemini (stream-json): run_program echo hi returned "hi" and exit status 0',
    results.run_program && results.run_program.status === 'success' &&
    /^hi\n\[p\d+: completed, exit status 0\b/.test(out('run_program')),
    JSON.stringify(results.run_program));
  check('gemini (stream-json): start_program returned a programId',
    results.start_program && results.start_program.status === 'success' &&
    /programId p\d+/.test(out('start_program')), JSON.stringify(results.start_program));
  check('gemini (stream-json): read_program carried wait_for_previous',
    calls.read_program && calls.read_program.wait_for_previous === true,
    JSON.stringify(calls.read_program));
  check('gemini (stream-json): read_program with wait_for_previous ran and returned "started"',
    results.read_program && results.read_program.status === 'success' &&
    /^started\n/.test(out('read_program')), JSON.stringify(results.read_program));
  const end = ev.find((e) => e.type === 'result');
  const text = ev.filter((e) => e.type === 'message' && e.role === 'assistant')
    .map((e) => e.content).join('');
  check('gemini: the turn ends with the model\'s "finished"',
    turn.code === 0 && end && end.status === 'success' && text === 'finished',
    `${turn.code} ${text} ${turn.stderr.slice(-300)}`);

  const last = lastScripted('gemini');
  const sent = {};
  if (last)
    for (const c of last.body.contents || [])
      for (const p of c.parts || [])
        if (p.functionResponse) {
          const t = TOOLS.find((x) => p.functionResponse.name.endsWith(x));
          sent[t] = p.functionResponse.response;
        }
  check('gemini: the model was sent three progmux tool results', last && last.step === 3,
    last ? `step ${last.step}` : 'no scripted request');
  const txt = (t) => sent[t] && typeof sent[t].output === 'string' ? sent[t].output : '';
  check('gemini (sent to the model): run_program result has "hi" and exit status 0',
    /\bhi\n\[p\d+: completed, exit status 0\b/.test(txt('run_program')),
    JSON.stringify(sent.run_program));
  check('gemini (sent to the model): read_program with wait_for_previous returned "started"',
    sent.read_program && !sent.read_program.error && /\bstarted\n/.test(txt('read_program')),
    JSON.stringify(sent.read_program));
  await geminiAt(env, g, home, work);
}

// Gemini CLI's @ names an MCP resource as @server:uri and reads it with
// resources/read before the model is asked. The resource must be listed
// when the prompt is typed, so this is an interactive session (gemini
// runs in a pane of a private tmux server, tmux -S in the run
// directory): a first turn starts a program, progmux tells Gemini CLI the
// list changed, and the person's next prompt mentions the program's
// output; what Gemini CLI shows and what the model is sent are checked.
async function geminiAt(env, g, home, work) {
  const debugLog = path.join(home, 'progmux-debug.log');
  const settingsFile = path.join(home, '.gemini', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  const entry = settings.mcpServers.progmux;
  settings.mcpServers.progmux = { ...entry, command: '/bin/sh',
    args: ['-c', 'exec "$0" 2>>"$1"', entry.command, debugLog],
    env: { ...entry.env, PROGMUX_DEBUG: '1' } };
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  const pc = paneClient(path.join(run, 'gemini-tmux.sock'), env, work);
  const { screen, type } = pc;
  const wait = waitFor;
  const before = modelLog().length;
  const up = await pc.start([g]);
  check('gemini (interactive): starts in a pane of a private tmux server', up.code === 0, up.stderr);
  const ready = await wait(async () => /Type your message/.test(await screen()) &&
    debugLines(debugLog).some((l) => /request \S+: resources\/list /.test(l)), 60000);
  check('gemini (interactive): shows its prompt; progmux connected and its resources listed',
    ready, (await screen()).slice(-800));
  await type(PROMPT);
  const started = await wait(async () => modelLog().slice(before).some((r) =>
    r.api === 'gemini' && r.step === 3), 60000);
  // The start made a program: progmux said the list changed, and Gemini
  // CLI listed the resources again.
  const relisted = await wait(async () => debugLines(debugLog).filter((l) =>
    /request \S+: resources\/list /.test(l)).length >= 2, 10000);
  check('gemini (interactive): the first turn started a program and Gemini CLI listed the resources again',
    started && relisted, (await screen()).slice(-800));
  const id = (debugLines(debugLog).map((l) => /"programId\\":\\"(p\d+)\\"/.exec(l) ||
    /programId (p\d+)/.exec(l)).filter(Boolean).pop() || [])[1] ||
    modelLog().slice(before).map((r) => /programId[^p]*(p\d+)/.exec(JSON.stringify(r.body)))
      .filter(Boolean).map((m) => m[1]).pop();
  const uri = `progmux://programs/${id}/output`;
  const mark = modelLog().length;
  await type(`What did @progmux:${uri} print?`);
  const sent = () => modelLog().slice(mark).find((r) => r.api === 'gemini' &&
    JSON.stringify(r.body.contents || []).includes('[' + id + ': completed'));
  const got = await wait(async () => sent() !== undefined, 60000);
  await wait(async () => /Successfully read resource/.test(await screen()), 5000);
  const shown = await screen();
  // It leaves as a person leaves it: /quit (it ignores the hang-up a
  // killed tmux server gives), then the server goes.
  const pid = Number((await pc.run('display-message', '-p', '#{pane_pid}')).stdout.trim());
  await type('/quit');
  const quit = await wait(async () => { try { process.kill(pid, 0); return false; } catch (e) { return true; } }, 15000);
  check('gemini (interactive): /quit ends it', quit, (await screen()).slice(-300));
  await pc.run('kill-server');
  const read = debugLines(debugLog).find((l) => / in: /.test(l) &&
    /"method":"resources\/read"/.test(l) && l.includes(uri));
  const taken = debugLines(debugLog).filter((l) => / request /.test(l));
  check('gemini (interactive): progmux\'s debug log: it spoke the 2025 era (initialize; no 2026-07-28 request)',
    taken.some((l) => /request \S+: initialize \(before initialize\)/.test(l)) &&
    !taken.some((l) => /\(2026-07-28\)/.test(l)), taken.slice(0, 3).join(' | '));
  check(`gemini (interactive): @progmux:${uri} made Gemini CLI call resources/read on progmux`,
    read !== undefined, debugLines(debugLog).filter((l) => / request /.test(l)).slice(-5).join(' | '));
  if (read) note(`gemini sent (progmux's debug log): ${read.replace(/^.* in: /, '')}`);
  const shownRead = shown.split('\n').filter((l) => /resources\/read|Successfully read resource/.test(l));
  for (const l of shownRead) note(`gemini showed: ${l.trim()}`);
  check('gemini (interactive): it shows the resource read',
    shownRead.some((l) => l.includes(`Successfully read resource ${uri}`)), shown.slice(-800));
  const body = sent() ? JSON.stringify(sent().body.contents) : '';
  check('gemini (interactive): the model was sent the output\'s text, "started", "done" and the cursor to read on from',
    got && body.includes('started\\ndone\\n') && body.includes(`[${id}: completed, exit status 0; cursor 13`),
    body.slice(-600) || shown.slice(-600));
}


// ---- Codex -------------------------------------------------------------------

// Codex: `codex mcp add`, approval for progmux's tools in config.toml, the
// app-server's server status, one `codex exec --json` turn.
async function codex(model) {
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
  check('codex: app-server mcpServerStatus/list shows progmux with its 7 tools',
    srv && TOOLS.every((t) => tools.includes(t)), JSON.stringify(status).slice(0, 400));

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

// ---- the Chat Completions clients ----------------------------------------------

const PROMPT2 = 'Start a program with progmux, read its prompt and answer it.';

// Without the terminal's colours.
function plain(s) {
  return String(s || '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

// The prompt script's checks on what progmux returned for start_program,
// read_program and send_keys, as text or JSON (where names the channel).
function checkPrompt(who, where, r) {
  const str = (v) => (v === undefined || v === null ? '' :
    typeof v === 'string' ? v : JSON.stringify(v));
  const start = str(r.start_program);
  const read = str(r.read_program);
  const keys = str(r.send_keys);
  check(`${who} (${where}): start_program returned a programId and a paneId`,
    /programId\W+p\d+/.test(start) && /%\d+/.test(start), start);
  check(`${who} (${where}): read_program saw the prompt "name? ", waiting for input`,
    read.includes('name? ') && /waiting for input|waitingForInput\W+true/.test(read), read);
  check(`${who} (${where}): send_keys with timeoutMs returned the program's answer "hello progmux"`,
    /hello progmux/.test(keys) && /completed|"ended"\s*:\s*true/.test(keys), keys);
}

// What the client sent the model in its last scripted Chat Completions
// request: the tool results by progmux tool name.
function sentChat() {
  const last = lastScripted('chat');
  const calls = new Map();
  const sent = {};
  if (last)
    for (const m of last.body.messages || []) {
      for (const c of m.tool_calls || [])
        calls.set(c.id, c.function ? c.function.name : c.name);
      if (m.role === 'tool') {
        const t = TOOLS.find((x) => (calls.get(m.tool_call_id) || '').endsWith(x));
        sent[t] = typeof m.content === 'string' ? m.content :
          Array.isArray(m.content) ? m.content.map((x) => x.text || '').join('') :
            JSON.stringify(m.content);
      }
    }
  return { last, sent };
}

// The checks on what the model was sent; note it for the record.
function checkSent(who) {
  const { last, sent } = sentChat();
  check(`${who}: the model was sent three progmux tool results`, last && last.step === 3,
    last ? `step ${last.step}` : 'no scripted request');
  for (const t of ['start_program', 'read_program', 'send_keys'])
    note(`${who} sent the model for ${t}: ${JSON.stringify(sent[t] || null).slice(0, 400)}`);
  checkPrompt(who, 'sent to the model', sent);
  return sent;
}

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
function opencode(model) {
  return opencodeLike('opencode', 'opencode', 'opencode', 'OPENCODE', model);
}

// Kilo, opencode's fork: the same commands as kilo, kilo.jsonc, KILO_*;
// also no session upload, presence or codebase indexing.
function kilo(model) {
  return opencodeLike('kilo', 'kilo', 'kilo', 'KILO', model,
    ['DISABLE_SESSION_INGEST', 'DISABLE_PRESENCE', 'DISABLE_CODEBASE_INDEXING']);
}

// Lines of a client's output that pass on a warning or an error of
// progmux's (its stderr, or its notifications/message text).
function progmuxLoud(s) {
  return plain(s).split('\n').filter((l) =>
    /progmux(-reaper)?\[\d+\]: (warning|error)/.test(l) ||
    /tmux control client ended|reaper was killed/.test(l));
}

// Qwen Code: `qwen mcp add --scope user --trust -e`, alwaysLoadTools on
// the entry (else MCP tools hide behind tool_search), `qwen mcp list`,
// one `qwen -p --output-format stream-json --auth-type openai` turn with
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL.
async function qwen(model) {
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

// Everything in the files of dir (a client's logs), or ''.
function readAll(dir) {
  if (!existsSync(dir)) return '';
  return readdirSync(dir).map((f) => {
    try { return readFileSync(path.join(dir, f), 'utf8'); } catch (e) { return ''; }
  }).join('\n');
}

// GitHub Copilot CLI: `copilot mcp add --env` (~/.copilot/mcp-config.json),
// `copilot mcp list` (it does not start servers), then one `copilot -p
// --output-format json --allow-tool progmux` turn, offline, against the
// scripted model as its provider (COPILOT_PROVIDER_BASE_URL); the stream
// says whether progmux connected and how many tools it gave.
async function copilot(model) {
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
  check('copilot: its json stream says progmux connected with 7 tools',
    up && loaded && loaded.data.toolCount === 7, plain(turn.stderr).slice(-300));
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
async function cline(model) {
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

// ---- MCP Inspector -----------------------------------------------------------

// The Inspector CLI's tools/list.
async function inspector() {
  const { home, work } = place('inspector');
  const env = clientEnv(home, {});
  const r = await sh([path.join(binDir, 'mcp-inspector'), '--cli', '-e',
    'PROGMUX_ROBUST=1', bin, '--method', 'tools/list'], { env, cwd: work });
  const j = asJson(r.stdout);
  const names = j && Array.isArray(j.tools) ? j.tools.map((t) => t.name) : [];
  note(`mcp-inspector --cli tools/list: ${names.join(',')}`);
  check('inspector: mcp-inspector --cli tools/list lists progmux\'s 7 tools',
    r.code === 0 && TOOLS.every((t) => names.includes(t)), r.stdout.slice(0, 300) + r.stderr);
}

// ---- clean-up ------------------------------------------------------------------

// Processes left from this run: our progmux or progmux-reaper, or
// anything whose command line or environment names the run directory
// (the clients' private tmux servers and their control clients have
// TMPDIR and their socket in it).
function leftovers(spare) {
  const pids = [];
  const spared = [].concat(spare);
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid || spared.includes(Number(d)))
      continue;
    let exe = '';
    let cmd = '';
    let env = '';
    try {
      exe = readlinkSync(`/proc/${d}/exe`);
      cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      env = readFileSync(`/proc/${d}/environ`, 'utf8');
    } catch (e) {
      continue;
    }
    if (exe === bin || exe === reaper || cmd.includes(run) || env.includes(run))
      pids.push(`${d} ${cmd.replace(/\0/g, ' ').trim().slice(0, 120)}`);
  }
  return pids;
}

// Wait (bounded) until nothing the clients started is left (the model
// server, PID spare, aside); end what is left, by PID, and fail.
async function nothingLeft(who, spare) {
  const deadline = Date.now() + 15000;
  let left = leftovers(spare);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = leftovers(spare);
  }
  check(`${who}: nothing it started is left (progmux, reapers, tmux)`,
    left.length === 0, `still running: ${left.join('; ')}`);
  for (const l of left)
    try { process.kill(Number(l.split(' ')[0]), 'SIGKILL'); } catch (e) { /* gone */ }
}

// ---- main ----------------------------------------------------------------------

// An error event nobody handles (a pipe of a client's) fails the run
// but does not end it: the clean-up below must still run.
process.on('uncaughtException', (e) => {
  check('no uncaught error', false, e && e.stack || e);
});
mkdirSync(path.join(run, 'tmp'));
let model = null;
try {
  const only = process.env.CLIENTS ? process.env.CLIENTS.split(',') : null;
  for (const [name, b] of [['', bin], ['claude', 'claude'], ['gemini', 'gemini'],
    ['codex', 'codex'], ['inspector', 'mcp-inspector'], ['opencode', 'opencode'],
    ['kilo', 'kilo'], ['qwen', 'qwen'], ['copilot', 'copilot'], ['cline', 'cline']]) {
    const f = name ? path.join(binDir, b) : b;
    if ((!name || !only || only.includes(name)) && !existsSync(f))
      throw new Error(`${f} is missing`);
  }
  model = await startModel();
  for (const [name, fn] of [['claude', claude], ['gemini', gemini],
    ['codex', codex], ['opencode', opencode], ['kilo', kilo],
    ['qwen', qwen], ['copilot', copilot],
    ['cline', cline], ['inspector', inspector]]) {
    if (only && !only.includes(name))
      continue;
    try {
      await fn(model);
    } catch (e) {
      check(`${name}: ran to the end`, false, e && e.stack || e);
    }
    await nothingLeft(name, model.proc.pid);
  }
} catch (e) {
  check('set-up', false, e && e.stack || e);
}
for (const p of children)
  try { process.kill(p.pid, 'SIGTERM'); } catch (e) { /* gone */ }
if (model)
  await new Promise((r) => (model.proc.exitCode !== null ? r() : model.proc.on('close', r)));
await nothingLeft('all');
rmSync(run, { recursive: true, force: true });
check('the run directory is removed', !existsSync(run));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
