// tap.mjs — what the end-to-end tests (e2e.mjs, eras.mjs, and the
// browser runs secrets.mjs and view.mjs) share: their checks as TAP
// lines, the summary scripts/test/test.sh adds up, the environment of
// the progmux they drive, and the tools it must list.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const tally = { passed: 0, failed: 0, skipped: 0, n: 0 };

// Record one check as a TAP line.
export function check(name, ok, why) {
  tally.n++;
  if (ok) {
    tally.passed++;
    console.log(`ok ${tally.n} - ${name}`);
  } else {
    tally.failed++;
    console.log(`not ok ${tally.n} - ${name}${why ? ' # ' + String(why).slice(0, 500) : ''}`);
  }
  return ok;
}

// Record a check that did not run, and why: a TAP skip, counted apart
// (neither passed nor failed), listed as test.sh lists skips.
export function skip(name, why) {
  tally.n++;
  tally.skipped++;
  console.log(`ok ${tally.n} - ${name} # SKIP ${why}`);
  console.log(`skipped: ${name}: ${why}`);
}

// Run one named step; an exception fails it, and so does a value other
// than undefined or true that it returns (why it failed).
export async function step(name, fn) {
  try {
    const r = await fn();
    if (r === undefined || r === true) return check(name, true);
    return check(name, false, r);
  } catch (e) {
    return check(name, false, e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e);
  }
}

// The plan line, a cmocka-style summary for scripts/test/test.sh and
// "N passed, M failed"; the exit status says whether any check failed.
export function summary() {
  console.log(`1..${tally.n}`);
  console.log(`[  PASSED  ] ${tally.passed} test(s).`);
  if (tally.skipped > 0) console.log(`[  SKIPPED ] ${tally.skipped} test(s), listed above.`);
  if (tally.failed > 0) console.log(`[  FAILED  ] ${tally.failed} test(s), listed above.`);
  console.log(`${tally.passed} passed, ${tally.failed} failed${tally.skipped ? `, ${tally.skipped} skipped` : ''}`);
  process.exitCode = tally.failed > 0 ? 1 : 0;
}

// The start of a run that drives a browser (secrets.mjs, view.mjs): a
// private tmux server at ctx.sock with a session "base", and chromium
// launched by the caller's puppeteer, its profile in profile, as
// ctx.browser.
export async function startBrowserRun(ctx, { puppeteer, tmuxBin, chromium, profile }) {
  execFileSync(tmuxBin, ['-S', ctx.sock, '-f', '/dev/null', 'new-session', '-d', '-s', 'base'], { stdio: 'ignore' });
  ctx.browser = await puppeteer.launch({
    executablePath: chromium, headless: true, userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
  });
}

// The end of a run that drove a browser (secrets.mjs, view.mjs): the
// browser closed, the private tmux server at sock killed, the run's
// directory removed, progmux's last stderr lines shown when a check
// failed, then the summary.
export async function finishBrowserRun(ctx, tmuxBin, stderr) {
  if (ctx.browser) await ctx.browser.close().catch(() => {});
  ctx.browser = null;
  try { execFileSync(tmuxBin, ['-S', ctx.sock, 'kill-server'], { stdio: 'ignore' }); } catch { /* gone */ }
  rmSync(ctx.dir, { recursive: true, force: true });
  if (tally.failed > 0) for (const l of stderr.split('\n').slice(-30)) console.log('#   ' + l);
  summary();
}

// The environment a progmux under test gets: this process's, less
// anything naming another tmux server, plus the private server's socket
// (sock) and tmux binary, and TMPDIR and TMUX_TMPDIR in dir (its attach
// lock goes with the directory).
export function progmuxEnv(sock, dir, tmuxBin) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(TMUX|TMUX_PANE|PROGMUX_SOCKET_NAME|LIBTMUX_SOCKET_NAME|LIBTMUX_SOCKET_PATH)$/.test(k)) continue;
    if (v !== undefined) env[k] = v;
  }
  return { ...env, PROGMUX_SOCKET_PATH: sock, PROGMUX_TMUX_BIN: tmuxBin, TMPDIR: dir, TMUX_TMPDIR: dir };
}

// The tools the build under test lists to a client, by name, sorted:
// every schemas/*.json, but ask_user_secret where the build has no page
// for it, and a tool only the view may call (its _meta.ui.visibility
// without "model"), which is listed only to a client that renders it.
// Whether it has is the build's configuration, which the Makefile gives
// the tests as PMX_SECRET_PAGE (1 or 0), as it gives the C tests
// -DPROGMUX_SECRET_PAGE; never what the binary says of itself.
export function builtTools() {
  const page = process.env.PMX_SECRET_PAGE;
  if (page !== '1' && page !== '0')
    throw new Error(`PMX_SECRET_PAGE is ${JSON.stringify(page)}, not 1 or 0: run the tests through make, which says whether the build has ask_user_secret's page`);
  const dir = path.join(root, 'schemas');
  const defs = readdirSync(dir).filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
  const forModel = (d) => !d._meta?.ui?.visibility || d._meta.ui.visibility.includes('model');
  const names = defs.filter(forModel).map((d) => d.name).sort();
  if (!names.includes('ask_user_secret')) throw new Error(`no ask_user_secret in ${dir}`);
  return names.filter((n) => page === '1' || n !== 'ask_user_secret');
}

// What the server's instructions must say (the facts a model gets wrong):
// undefined, or what is missing. Each fact is looked for within one
// sentence.
export function instructionFacts(text) {
  if (typeof text !== 'string') return `no instructions: ${text}`;
  const sentences = text.split(/\.\s+/);
  const facts = [
    [/PROGMUX_WAIT_MAX_MS/, /\b\d+ ms\b/],
    [/cuts/, /timeoutMs/],
    [/waitingForInput/, /send_keys/],
    [/inputHidden/, /password/],
    [/never type a password/],
    [/lifetimeMs/, /server exits/],
  ];
  for (const f of facts)
    if (!sentences.some((s) => f.every((re) => re.test(s)))) return `no sentence says ${f.join(' and ')}: ${text}`;
  const words = text.split(/\s+/).length;
  if (words < 80 || words > 150) return `${words} words, not about 120`;
  return undefined;
}

// The prompts through an SDK client (either the 1.x or the 2.x one): the
// capability, the list, run-and-check's message with its argument, and a
// missing argument refused.
export async function promptSteps(client, tag) {
  await step(`${tag}: the instructions state the facts (wait ceiling, waitingForInput, inputHidden, lifetime)`, () =>
    instructionFacts(client.getInstructions()));
  await step(`${tag}: prompts/list: the workflows, with their arguments`, async () => {
    if (!client.getServerCapabilities().prompts) return 'no prompts capability';
    const { prompts } = await client.listPrompts();
    const names = prompts.map((p) => p.name).join(',');
    if (names.replace(/,answer-password$/, '') !== 'run-and-check,start-and-wait,why-is-it-quiet') return names;
    const a = prompts[0].arguments;
    if (!a || a[0].name !== 'command' || a[0].required !== true) return JSON.stringify(a);
  });
  await step(`${tag}: prompts/get run-and-check: a user message with the command in it`, async () => {
    const r = await client.getPrompt({ name: 'run-and-check', arguments: { command: 'make check' } });
    const m = r.messages[0];
    if (r.messages.length !== 1 || m.role !== 'user' || m.content.type !== 'text') return JSON.stringify(r);
    if (!m.content.text.includes('`make check`') || !m.content.text.includes('run_program')) return m.content.text;
  });
  await step(`${tag}: prompts/get without its required argument is refused`, async () => {
    try {
      await client.getPrompt({ name: 'run-and-check', arguments: {} });
      return 'answered';
    } catch (e) {
      if (e.code !== -32602 || !/command/.test(e.message)) return `${e.code} ${e.message}`;
    }
  });
}
