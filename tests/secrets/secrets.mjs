// secrets.mjs — ask_user_secret for real: a password goes from the person
// (Debian's chromium, headless, driven by puppeteer-core) to a program
// that reads it with echo off, through progmux's one-time page, while the
// official MCP TypeScript SDK clients answer the URL elicitation:
//
//   - 2025-11-25: the 1.x client declares elicitation.url; progmux sends
//     elicitation/create (mode url); the handler accepts and opens the URL
//     in the browser, which types the secret and sends the form;
//     notifications/elicitation/complete follows and the call answers with
//     the program's reply;
//   - 2026-07-28: the 2.x client (server/discover first) gets the
//     input_required result, its multi-round-trip driver calls the same
//     handler and makes the call again with the accept;
//   - ssh with password authentication to an sshd started here on
//     127.0.0.1 (its own configuration and host key in a temporary
//     directory; its user given a password in a private mount namespace
//     where copies of /etc/passwd and /etc/shadow are bind-mounted: the
//     machine's own files are not changed). Where that cannot be set up
//     (no sshd, unshare -m refused, sshd not starting) it fails, unless
//     SECRETS_SSH=skip says to skip it: then it is listed as skipped with
//     the reason, not counted as passed;
//   - the page under attack: while other processes, of this user and of
//     another one (nobody, when the test runs as root), hold the page's
//     port with requests sent a byte every 2 s, hundreds of idle
//     connections, a flood of new ones, then all of these at once
//     (tests/fixtures/pageflood.c), the browser loads the page and sends
//     the secret, each within 2 s, and the program reads it.
//
// After each, the secret is looked for in the call's whole result, the
// program's text (read_program from 0), tmux's history of the pane
// (capture-pane -S -, which must hold the prompt), progmux's stderr at
// debug level (PROGMUX_DEBUG=1, which it must be), its runtime directory,
// and the browser's profile directory: it must be in none, in any form it
// could take there (as typed, JSON-escaped, quoted for tmux's parser as a
// logged tmux command would hold it, and its random first word). The page
// as rendered is kept as build/secrets/page.png, the elicitation requests
// as received as build/secrets/*.json.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import puppeteer from 'puppeteer-core';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as Stdio1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2 } from '@modelcontextprotocol/client/stdio';

import { check, finishBrowserRun, progmuxEnv, skip, startBrowserRun, step } from '../e2e/tap.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.resolve(root, process.env.PROGMUX_BIN || 'build/progmux');
const getpass = path.join(path.dirname(bin), 'fixtures', 'getpass');
const pageflood = path.join(path.dirname(bin), 'fixtures', 'pageflood');
const PERSON_MS = 2000;	// the person's page and its answer, each by then
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const tmuxBin = process.env.PROGMUX_TEST_TMUX || 'tmux';
const art = path.join(root, 'build', 'secrets');
const overall = Number(process.env.SECRETS_TIMEOUT_MS || 180000);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A secret with what a shell or tmux's parser would act on.
function newSecret() {
  return `Pw-${randomBytes(9).toString('base64url')} $HOME;'"~#%{x}\\`;
}

// The word s as tmux_quote (server/tmux_parse.c) writes it for tmux's
// parser: how a logged tmux command would hold it.
function tmuxQuote(s) {
  if (/^[A-Za-z0-9%@=:/._,+-]+$/.test(s) && (s[0] !== '%' || /^%[0-9]+$/.test(s))) return s;
  if (!s.includes("'") && !/[\n\r]/.test(s)) return `'${s}'`;
  let q = '"';
  for (const c of s) {
    if (c === '\n') q += '\\n';
    else if (c === '\r') q += '\\r';
    else q += ('"\\$~#'.includes(c) ? '\\' : '') + c;
  }
  return `${q}"`;
}

// The forms the secret could take where it must not be: as typed,
// JSON-escaped (in a message), quoted for tmux (a logged tmux command),
// and its random first word (any other encoding, or cut short).
function forms(secret) {
  const f = [['as typed', secret], ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
    ['quoted for tmux', tmuxQuote(secret)], ['its first word', secret.split(' ')[0]]];
  if (f[1][1] === secret || f[2][1] === secret) throw new Error(`the secret needs no quoting: ${secret}`);
  return f;
}

// Which form of secret text (a string or a Buffer) holds, or undefined.
function formIn(text, secret) {
  const f = forms(secret).find(([, s]) => text.includes(Buffer.isBuffer(text) ? Buffer.from(s) : s));
  return f && f[0];
}

// Every file under dir (regular files only) that holds the secret, and in
// which form.
function holders(dir, secret) {
  const found = [];
  const walk = (d) => {
    let names = [];
    try { names = readdirSync(d); } catch { return; }
    for (const n of names) {
      const p = path.join(d, n);
      let st;
      try { st = lstatSync(p); } catch { continue; }
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        let f;
        try { f = formIn(readFileSync(p), secret); } catch { /* gone */ }
        if (f) found.push(`${p} (${f})`);
      }
    }
  };
  walk(dir);
  return found;
}

// The browser: the page at url, as the person sees it; the secret typed
// and sent. Every request it made must be to the page's own origin.
async function fill(browser, url, secret, shot) {
  const page = await browser.newPage();
  const origin = new URL(url).origin;
  const foreign = [];
  page.on('request', (r) => { if (!r.url().startsWith(origin)) foreign.push(r.url()); });
  if (process.env.SECRETS_TRACE) {
    page.on("response", (r) => console.log("# response", r.status(), r.request().method()));
    page.on("requestfailed", (r) => console.log("# failed", r.method(), r.failure() && r.failure().errorText));
    page.on("console", (m) => console.log("# console", m.text()));
  }
  if (process.env.SECRETS_TRACE) console.log("# goto", url);
  const first = await page.goto(url, { waitUntil: "load" });
  if (process.env.SECRETS_TRACE) console.log("# loaded");
  const headers = first.headers();
  if (shot) {
    mkdirSync(art, { recursive: true });
    await page.screenshot({ path: path.join(art, shot), fullPage: true });
  }
  await page.type("#s", secret);
  if (process.env.SECRETS_TRACE) console.log("# typed");
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
  const h1 = await page.$eval('h1', (e) => e.textContent);
  await page.close();
  return { h1, headers, foreign };
}

// The checks of a page's answer and headers.
function pageOk(f) {
  if (f.h1 !== 'Sent') return `the page said ${f.h1}`;
  if (f.headers['cache-control'] !== 'no-store') return `cache-control ${f.headers['cache-control']}`;
  if (!/default-src 'none'/.test(f.headers['content-security-policy'] || '')) return 'no strict CSP';
  if (f.foreign.length > 0) return `requests elsewhere: ${f.foreign.join(' ')}`;
  return undefined;
}

// FNV-1a as the getpass program prints it.
function fnv(s) {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(s)) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

// Look for the secret everywhere it must not be; a list of where it was.
function traces(ctx, secret, pane, results) {
  const where = [];
  let f = formIn(JSON.stringify(results), secret);
  if (f) where.push(`a tool result (${f})`);
  if (!ctx.out.stderr.includes(': tools/call (')) where.push("(not searched: progmux's stderr is not its debug log)");
  f = formIn(ctx.out.stderr, secret);
  if (f) where.push(`progmux's stderr (${f})`);
  for (const h of holders(ctx.rundir, secret)) where.push(h);
  for (const h of holders(ctx.profile, secret)) where.push(h);
  // The pane outlives its program (startHidden), so its whole history
  // is there to search.
  try {
    const hist = execFileSync(tmuxBin, ['-S', ctx.sock, 'capture-pane', '-p', '-S', '-', '-t', pane],
      { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    if (!hist.includes('Vault passphrase') && !hist.includes('Key passphrase') && !/password/.test(hist))
      where.push(`(not searched: ${pane}'s history does not hold the prompt)`);
    f = formIn(hist, secret);
    if (f) where.push(`the pane's tmux history (${f})`);
  } catch (e) {
    where.push(`(not searched: ${pane}'s history: ${String(e.stderr || e).trim()})`);
  }
  return where.length ? `the secret is in: ${where.join(', ')}` : undefined;
}

// Read program id from cursor until a line matching re or its end.
async function readUntil(call, id, re, ms = 20000) {
  let cursor = 0;
  let all = '';
  const end = Date.now() + ms;
  for (;;) {
    const r = await call('read_program', { programId: id, cursor, timeoutMs: 5000 });
    const sc = r.structuredContent;
    all += sc.text;
    cursor = sc.cursor;
    if (re(sc, all)) return { sc, all };
    if (sc.ended || Date.now() > end) return { sc, all, missed: true };
  }
}

function transportEnv(ctx) {
  return {
    ...progmuxEnv(ctx.sock, ctx.dir, tmuxBin), PROGMUX_SESSION: 'secrets', PROGMUX_DEBUG: '1',
    XDG_RUNTIME_DIR: ctx.rundir,
  };
}

function withStderr(t, ctx) {
  if (t.stderr) t.stderr.on('data', (d) => { ctx.out.stderr += d.toString(); });
  return t;
}

// The elicitation handler of both clients: accept, then let the browser
// fill the page (the call waits for the secret itself).
function handler(ctx, secret, seen) {
  return async (req) => {
    seen.request = req;
    const p = req.params;
    if (p.mode !== 'url') return { action: 'decline' };
    seen.filled = fill(ctx.browser, p.url, secret, seen.shot).catch((e) => ({ error: String(e) }));
    return { action: 'accept' };
  };
}

// Start a program and wait at its hidden prompt.
// Start argv, its pane kept a while after it ends (a shell sleeps on),
// so that its tmux history can be searched; read until it waits for
// hidden input.
async function startHidden(call, argv) {
  const s = await call('start_program', { argv: ['sh', '-c', '"$@"; exec sleep 120', 'sh', ...argv] });
  const id = s.structuredContent.programId;
  const pane = s.structuredContent.paneId;
  const w = await readUntil(call, id, (sc) => sc.waitingForInput);
  if (!w.sc.inputHidden) throw new Error(`not hidden input: ${JSON.stringify(w.sc)}`);
  return { id, pane, prompt: w.sc.unfinishedLine };
}

// 2025-11-25: the 1.x client.
async function legacy(ctx) {
  const secret = newSecret();
  const seen = { shot: 'page.png' };
  let completed = null;
  const client = new Client1({ name: 'progmux-secrets-2025', version: '1.0.0' },
    { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, handler(ctx, secret, seen));
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (n) => { completed = n.params.elicitationId; });
  const t = withStderr(new Stdio1({ command: bin, args: [], env: transportEnv(ctx), stderr: 'pipe' }), ctx);
  if (!await step('2025-11-25: connects declaring elicitation.url', () => client.connect(t))) return;
  const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
  const results = [];
  let prog;
  if (!await step('2025-11-25: a getpass program waits with inputHidden', async () => {
    prog = await startHidden(call, [getpass, 'Vault passphrase: ']);
  })) return client.close();
  await step('2025-11-25: ask_user_secret: elicitation/create (url), the browser fills the page, the program gets it', async () => {
    const r = await call('ask_user_secret', { programId: prog.id });
    results.push(r);
    writeFileSync(path.join(art, 'elicitation-2025-11-25.sdk.json'), JSON.stringify(seen.request, null, 2) + '\n');
    const f = await seen.filled;
    if (!f || f.error) return `browser: ${f && f.error}`;
    const bad = pageOk(f);
    if (bad) return bad;
    const sc = r.structuredContent;
    if (!sc || sc.typed !== true || sc.typedCharacters !== [...secret].length) return JSON.stringify(r);
    if (!sc.text.includes(`hash ${fnv(secret)}`)) return `the program did not read it: ${sc.text}`;
    if (completed !== seen.request.params.elicitationId) return `complete notification: ${completed}`;
  });
  await step('2025-11-25: the secret is nowhere', async () => {
    const r = await call('read_program', { programId: prog.id, cursor: 0 });
    results.push(r);
    return traces(ctx, secret, prog.pane, results);
  });
  await client.close();
}

// 2026-07-28: the 2.x client, its multi-round-trip driver.
async function modern(ctx) {
  const secret = newSecret();
  const seen = {};
  const client = new Client2({ name: 'progmux-secrets-2026', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler('elicitation/create', handler(ctx, secret, seen));
  const t = withStderr(new Stdio2({ command: bin, args: [], env: transportEnv(ctx), stderr: 'pipe' }), ctx);
  if (!await step('2026-07-28: connects (server/discover) declaring elicitation.url', () => client.connect(t))) return;
  if (!await step('2026-07-28: the era is 2026-07-28', () => {
    const v = client.getNegotiatedProtocolVersion();
    if (v !== '2026-07-28') return v;
  })) return client.close();
  const call = (name, args) => client.callTool({ name, arguments: args }, { timeout: 60000 });
  const results = [];
  let prog;
  if (!await step('2026-07-28: a getpass program waits with inputHidden', async () => {
    prog = await startHidden(call, [getpass, 'Key passphrase: ']);
  })) return client.close();
  await step('2026-07-28: ask_user_secret: input_required, the driver accepts, the browser fills, the program gets it', async () => {
    const r = await call('ask_user_secret', { programId: prog.id });
    results.push(r);
    writeFileSync(path.join(art, 'elicitation-2026-07-28.sdk.json'), JSON.stringify(seen.request, null, 2) + '\n');
    const f = await seen.filled;
    if (!f || f.error) return `browser: ${f && f.error}`;
    const bad = pageOk(f);
    if (bad) return bad;
    const sc = r.structuredContent;
    if (!sc || sc.typed !== true) return JSON.stringify(r);
    if (!sc.text.includes(`hash ${fnv(secret)}`)) return `the program did not read it: ${sc.text}`;
  });
  await step('2026-07-28: the secret is nowhere', async () => {
    const r = await call('read_program', { programId: prog.id, cursor: 0 });
    results.push(r);
    return traces(ctx, secret, prog.pane, results);
  });
  await client.close();
}

// A free port on 127.0.0.1 (asked of the system, then let go).
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

function portOpen(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.on('connect', () => { c.destroy(); resolve(true); });
    c.on('error', () => resolve(false));
  });
}

// An sshd on 127.0.0.1 whose user pmxsecret has password pw: in a mount
// namespace of its own, /etc/passwd and /etc/shadow are copies with that
// user added, bind-mounted over the machine's.
async function startSshd(ctx, pw) {
  const sshd = '/usr/sbin/sshd';
  if (!existsSync(sshd)) return { skip: 'no /usr/sbin/sshd' };
  try { execFileSync('unshare', ['-m', 'true'], { stdio: 'ignore' }); } catch { return { skip: 'unshare -m is not allowed here' }; }
  const d = path.join(ctx.dir, 'sshd');
  mkdirSync(d);
  const home = path.join(d, 'home');
  mkdirSync(home);
  chmodSync(home, 0o755);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(d, 'hostkey')]);
  const hash = execFileSync('openssl', ['passwd', '-6', '-stdin'], { input: pw }).toString().trim();
  writeFileSync(path.join(d, 'passwd'), readFileSync('/etc/passwd', 'utf8') +
    `pmxsecret:x:4242:4242:progmux test:${home}:/bin/sh\n`);
  writeFileSync(path.join(d, 'shadow'), readFileSync('/etc/shadow', 'utf8') + `pmxsecret:${hash}:19000:0:99999:7:::\n`);
  chmodSync(path.join(d, 'shadow'), 0o600);
  const port = await freePort();
  writeFileSync(path.join(d, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${path.join(d, 'hostkey')}`,
    `PidFile ${path.join(d, 'sshd.pid')}`, 'PasswordAuthentication yes', 'KbdInteractiveAuthentication no',
    'PubkeyAuthentication no', 'UsePAM no', 'PermitRootLogin no', 'StrictModes no', 'AuthorizedKeysFile none',
    'MaxAuthTries 2', '',
  ].join('\n'));
  let madeRun = false;
  if (!existsSync('/run/sshd')) { mkdirSync('/run/sshd', { mode: 0o755 }); madeRun = true; }
  const script = `mount --bind "$1/passwd" /etc/passwd && mount --bind "$1/shadow" /etc/shadow && exec ${sshd} -D -e -f "$1/sshd_config"`;
  const proc = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', d], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (b) => { log += b.toString(); });
  const end = Date.now() + 10000;
  while (!await portOpen(port)) {
    if (Date.now() > end || proc.exitCode !== null) {
      proc.kill('SIGTERM');
      return { skip: `sshd did not start: ${log.slice(-300)}` };
    }
    await sleep(20);
  }
  return { port, proc, madeRun, log: () => log };
}

// ssh with password authentication, the password from the browser.
async function sshLogin(ctx) {
  const pw = newSecret();
  const s = await startSshd(ctx, pw);
  if (s.skip) {
    if (process.env.SECRETS_SSH === 'skip') skip('ssh: the password from the page', s.skip);
    else check('ssh: an sshd of the test\'s own on 127.0.0.1 (SECRETS_SSH=skip skips it)', false, s.skip);
    return;
  }
  const seen = {};
  const client = new Client1({ name: 'progmux-secrets-ssh', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, handler(ctx, pw, seen));
  const t = withStderr(new Stdio1({ command: bin, args: [], env: transportEnv(ctx), stderr: 'pipe' }), ctx);
  try {
    await client.connect(t);
    const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
    const results = [];
    let prog;
    if (await step('ssh: the password prompt is hidden input', async () => {
      prog = await startHidden(call, ['ssh', '-F', '/dev/null', '-p', String(s.port), '-o', 'StrictHostKeyChecking=no',
        '-o', 'UserKnownHostsFile=/dev/null', '-o', 'PubkeyAuthentication=no', '-o', 'PreferredAuthentications=password',
        '-o', 'NumberOfPasswordPrompts=1', '-o', 'LogLevel=ERROR', 'pmxsecret@127.0.0.1', 'echo', 'logged-in-as-$(id -un)']);
      if (!/password/.test(prog.prompt)) return `prompt ${prog.prompt}`;
    })) {
      await step('ssh: ask_user_secret: the browser gives the password, ssh logs in', async () => {
        const r = await call('ask_user_secret', { programId: prog.id, timeoutMs: 10000 });
        results.push(r);
        const f = await seen.filled;
        if (!f || f.error) return `browser: ${f && f.error}`;
        const w = await readUntil(call, prog.id, (sc, all) => all.includes('logged-in-as-pmxsecret') || sc.ended);
        results.push(w.sc);
        if (!w.all.includes('logged-in-as-pmxsecret')) return `not logged in: ${w.all} ${s.log().slice(-300)}`;
      });
      await step('ssh: the password is nowhere', () => traces(ctx, pw, prog.pane, results));
    }
    await client.close();
  } finally {
    s.proc.kill('SIGTERM');
    await new Promise((r) => { if (s.proc.exitCode !== null) r(); else s.proc.on('exit', r); });
    if (s.madeRun) rmSync('/run/sshd', { recursive: true, force: true });
  }
}

// One pageflood on port (mode, n connections; as uid when given), once
// it holds its connections.
function attacker(port, mode, n, uid) {
  const args = [...(uid !== undefined ? ['-u', String(uid)] : []), String(port), mode, String(n)];
  const p = spawn(pageflood, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`pageflood ${args.join(' ')}: not ready`)); }, 20000);
    p.stdout.on('data', (b) => {
      out += b.toString();
      if (out.includes('ready\n')) { clearTimeout(t); resolve({ p, args, out: () => out }); }
    });
    p.on('exit', (c) => { clearTimeout(t); reject(new Error(`pageflood ${args.join(' ')} exited ${c}: ${out}`)); });
  });
}

// End an attacker (by its pid) and say what it made.
async function attackerEnd(a) {
  if (a.p.exitCode === null) {
    const gone = new Promise((r) => a.p.on('exit', r));
    a.p.kill('SIGTERM');
    await gone;
  }
  console.log(`# pageflood ${a.args.join(' ')}: ${a.out().replace('ready\n', '').trim()}`);
}

// The browser loads url and sends secret, each timed: the page's answer,
// or why not.
async function fillTimed(browser, url, secret) {
  const page = await browser.newPage();
  try {
    let t0 = Date.now();
    const r = await page.goto(url, { waitUntil: 'load', timeout: 10000 }).catch((e) => e);
    const load = Date.now() - t0;
    if (r instanceof Error) return { why: `the page did not load: ${r.message}` };
    if (r.status() !== 200) return { why: `the page answered ${r.status()}` };
    await page.type('#s', secret);
    t0 = Date.now();
    const nav = await Promise.all([page.waitForNavigation({ waitUntil: 'load', timeout: 10000 }),
      page.click('button[type=submit]')]).catch((e) => e);
    const post = Date.now() - t0;
    if (nav instanceof Error) return { why: `the form's answer did not come: ${nav.message}` };
    const h1 = await page.$eval('h1', (e) => e.textContent);
    return { load, post, h1 };
  } finally {
    await page.close();
  }
}

// The page under attack, by mode: the browser still gets it.
async function underAttack(ctx) {
  const other = process.getuid && process.getuid() === 0 ? 65534 : undefined;
  if (other === undefined) console.log('# under attack: not tried as another user: only root can be nobody');
  const rounds = [['slow', 48], ['idle', 150], ['flood', 200], ['all', 0]];
  const client = new Client1({ name: 'progmux-secrets-attack', version: '1.0.0' }, { capabilities: {} });
  const t = withStderr(new Stdio1({ command: bin, args: [], env: transportEnv(ctx), stderr: 'pipe' }), ctx);
  if (!await step('under attack: connects (no URL elicitation: the address comes in the result)', () => client.connect(t))) return;
  const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
  let prog;
  if (!await step('under attack: a getpass program waits with inputHidden', async () => {
    prog = await startHidden(call, [getpass, 'Vault passphrase: ', String(rounds.length)]);
  })) return client.close();
  for (const [mode, n] of rounds) {
    const who = other !== undefined ? 'this user and nobody' : 'this user';
    const what = mode === 'all' ? 'slow, idle and flooding connections at once' : `${mode} connections`;
    const attackers = [];
    const secret = newSecret();
    await step(`under attack (${what}, from ${who}): chromium loads the page and sends the secret, each within ${PERSON_MS} ms`, async () => {
      try {
        const r = await call('ask_user_secret', { programId: prog.id });
        const url = r.structuredContent && r.structuredContent.urlForUser;
        if (!url) return `no urlForUser: ${JSON.stringify(r)}`;
        const port = new URL(url).port;
        const kinds = mode === 'all' ? [['slow', 24], ['idle', 100], ['flood', 100]] : [[mode, n]];
        for (const [m, k] of kinds) {
          attackers.push(await attacker(port, m, k));
          if (other !== undefined) attackers.push(await attacker(port, m, k, other));
        }
        const f = await fillTimed(ctx.browser, url, secret);
        console.log(`# ${what}: page loaded in ${f.load} ms, answered in ${f.post} ms`);
        if (f.why) return f.why;
        if (f.h1 !== 'Sent') return `the page said ${f.h1}`;
        if (f.load > PERSON_MS) return `the page took ${f.load} ms to load`;
        if (f.post > PERSON_MS) return `the secret's answer took ${f.post} ms`;
      } finally {
        for (const a of attackers) await attackerEnd(a);
      }
      const w = await readUntil(call, prog.id, (sc, all) => all.includes(`hash ${fnv(secret)}`));
      if (w.missed) return `the program did not read it: ${w.all}`;
    });
  }
  await client.close();
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'progmux-secrets-'));
  const ctx = {
    dir, sock: path.join(dir, 'tmux.sock'), rundir: path.join(dir, 'run'), profile: path.join(dir, 'chrome'),
    out: { stderr: '' },
  };
  mkdirSync(ctx.rundir, { mode: 0o700 });
  mkdirSync(art, { recursive: true });
  const guard = setTimeout(() => {
    check(`whole run within ${overall} ms`, false, 'timed out');
    finish(ctx).then(() => process.exit(1));
  }, overall);
  try {
    await startBrowserRun(ctx, { puppeteer, tmuxBin, chromium, profile: ctx.profile });
    await legacy(ctx);
    await modern(ctx);
    await sshLogin(ctx);
    await underAttack(ctx);
  } catch (e) {
    check('secrets run', false, e && e.stack ? e.stack : e);
  }
  clearTimeout(guard);
  await finish(ctx);
}

function finish(ctx) {
  return finishBrowserRun(ctx, tmuxBin, ctx.out.stderr);
}

main();
