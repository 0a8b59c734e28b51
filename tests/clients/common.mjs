// common.mjs — what every client's test shares: the settings from the
// environment, the checks and their tally, each client's throwaway HOME and
// environment, running a command bounded by CLIENT_TIMEOUT_MS in its own
// process group, the scripted model and its log, the checks on what
// progmux returned and what the client sent the model, a client typed
// into in a pane of a private tmux server, and the clean-up checks.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { builtTools } from '../e2e/tap.mjs';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
export const bin = path.resolve(process.env.PROGMUX_BIN || path.join(root, 'build/progmux'));
export const reaper = path.join(path.dirname(bin), 'progmux-reaper');
export const command = process.env.PROGMUX_COMMAND ? JSON.parse(process.env.PROGMUX_COMMAND) : [bin];
export const clientsDir = path.resolve(process.env.CLIENTS_DIR || path.join(root, 'build/clients'));
export const binDir = path.join(clientsDir, 'node_modules', '.bin');
export const limit = Number(process.env.CLIENT_TIMEOUT_MS || 120000);
export const PROMPT = 'Run echo hi with progmux, then start a program and read it.';
// The tools the clients must show: schemas/'s, less ask_user_secret in a
// build without its page (tap.mjs, from the build's configuration).
export const TOOLS = builtTools();
// Do names (a client's list of progmux's tools, as it spells them: a
// prefix, then the tool's name) name exactly TOOLS?
export function sameTools(names, prefix = '') {
  return JSON.stringify([...names].sort()) === JSON.stringify(TOOLS.map((t) => prefix + t).sort());
}

export let passed = 0;
export let failed = 0;
export const run = mkdtempSync(path.join(tmpdir(), 'progmux-clients-'));
export const children = new Set();
export const PROMPT2 = 'Start a program with progmux, read its prompt and answer it.';

// Record one check as one line.
export function check(name, ok, why) {
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
export function note(s) {
  console.log(`# ${s}`);
}

// The environment every client gets: the machine's, less anything that
// could reach a real account or a real tmux server, plus this client's
// HOME, a TMPDIR inside the run directory and the switches that keep it
// off the network.
export function clientEnv(home, extra) {
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
export function sh(argv, { env, cwd, input }) {
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
export function jsonLines(s) {
  const out = [];
  for (const l of s.split('\n')) {
    if (!l.trim().startsWith('{')) continue;
    try { out.push(JSON.parse(l)); } catch (e) { /* not JSON */ }
  }
  return out;
}

// The model server's log: one record per request.
export function modelLog() {
  const f = path.join(run, 'model.log');
  return existsSync(f) ? jsonLines(readFileSync(f, 'utf8')) : [];
}

// The last scripted request of one API, or null.
export function lastScripted(api) {
  const recs = modelLog().filter((r) => r.api === api && typeof r.step === 'number');
  return recs.length ? recs[recs.length - 1] : null;
}

// A tool result as progmux's structured JSON, or null.
export function asJson(s) {
  if (typeof s !== 'string') return null;
  const i = s.indexOf('{');
  if (i < 0) return null;
  try { return JSON.parse(s.slice(i)); } catch (e) { return null; }
}

// Checks on run_program's and read_program's structured results (Claude
// Code and Codex give the model the structuredContent JSON).
export function checkStructured(who, run_, start, read) {
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
export async function startModel() {
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
export function place(name) {
  const home = path.join(run, name, 'home');
  const work = path.join(run, name, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  return { home, work };
}

// The client's line about progmux in its own list output.
export function healthLine(s) {
  return (s.split('\n').find((l) => l.includes('progmux')) || '').trim();
}

// progmux's debug log, as lines ([] if it wrote none).
export function debugLines(file) {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
}

// A client typed into as a person would: in a pane of a private tmux
// server (tmux -S sock, in the run directory; never the default server)
// running argv with env. run: a tmux command on that server; screen:
// what the pane shows; type: text then Enter; waitFor: pred true within
// ms (polled every 250 ms), or false.
export function paneClient(sock, env, cwd) {
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
export async function waitFor(pred, ms) {
  const end = Date.now() + ms;
  for (;;) {
    if (await pred()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

// Without the terminal's colours.
export function plain(s) {
  return String(s || '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

// The prompt script's checks on what progmux returned for start_program,
// read_program and send_keys, as text or JSON (where names the channel).
export function checkPrompt(who, where, r) {
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
export function sentChat() {
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
export function checkSent(who) {
  const { last, sent } = sentChat();
  check(`${who}: the model was sent three progmux tool results`, last && last.step === 3,
    last ? `step ${last.step}` : 'no scripted request');
  for (const t of ['start_program', 'read_program', 'send_keys'])
    note(`${who} sent the model for ${t}: ${JSON.stringify(sent[t] || null).slice(0, 400)}`);
  checkPrompt(who, 'sent to the model', sent);
  return sent;
}

// Lines of a client's output that pass on a warning or an error of
// progmux's (its stderr, or its notifications/message text).
export function progmuxLoud(s) {
  return plain(s).split('\n').filter((l) =>
    /progmux(-reaper)?\[\d+\]: (warning|error)/.test(l) ||
    /tmux control client ended|reaper was killed/.test(l));
}

// Everything in the files of dir (a client's logs), or ''.
export function readAll(dir) {
  if (!existsSync(dir)) return '';
  return readdirSync(dir).map((f) => {
    try { return readFileSync(path.join(dir, f), 'utf8'); } catch (e) { return ''; }
  }).join('\n');
}

// A progmux or progmux-reaper of ours: the binaries under test, or one
// npx runs from its cache (npm_config_cache, as npm-test gives it), which
// is a copy of them.
const npxCache = process.env.npm_config_cache ? path.resolve(process.env.npm_config_cache) : null;
function ours(p) {
  return p === bin || p === reaper || (npxCache !== null && p.startsWith(npxCache + path.sep) &&
    /\/progmux(-reaper)?$/.test(p));
}

// Every process but this one whose exe, command line and environment
// can be read: {pid, exe, cmd, env} (cmd and env NUL-separated, as /proc
// gives them).
export function processes() {
  const out = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid)
      continue;
    try {
      out.push({ pid: Number(d), exe: readlinkSync(`/proc/${d}/exe`),
        cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8'),
        env: readFileSync(`/proc/${d}/environ`, 'utf8') });
    } catch (e) {
      continue;
    }
  }
  return out;
}

// Processes left from this run: our progmux or progmux-reaper, run
// directly or through an interpreter (qemu-user, a loader), which
// /proc/PID/exe names instead and its command line's first words name
// the program; or anything whose command line or environment names the
// run directory (the clients' private tmux servers and their control
// clients have TMPDIR and their socket in it).
export function leftovers(spare) {
  const spared = [].concat(spare);
  return processes().filter(({ pid, exe, cmd, env }) => !spared.includes(pid) &&
    (ours(exe) || cmd.split('\0').slice(0, 3).some(ours) || cmd.includes(run) ||
      env.includes(run))).map(({ pid, cmd }) =>
    `${pid} ${cmd.replace(/\0/g, ' ').trim().slice(0, 120)}`);
}

// Wait (bounded) until nothing the clients started is left (the model
// server, PID spare, aside); end what is left, by PID, and fail.
export async function nothingLeft(who, spare) {
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
