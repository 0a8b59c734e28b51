// claude.mjs — Claude Code: `claude mcp add -s user`, `claude mcp list`,
// one `claude -p` turn, an interactive turn in a pane for the tasks
// extension, a turn on two hosts through one progmux, and a dev server
// that outlives one run on its lease and is adopted by the next.
import { lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  bin, reaper, command, binDir, PROMPT, sameTools, run, check, note, clientEnv, sh,
  jsonLines, modelLog, lastScripted, checkStructured, place, healthLine,
  debugLines, paneClient, waitFor, asJson, processes
} from './common.mjs';

// Claude Code's environment in home: the scripted model, a dummy key,
// nothing sent anywhere else.
function claudeEnv(home, model) {
  return clientEnv(home, {
    ANTHROPIC_API_KEY: 'dummy-key',
    ANTHROPIC_BASE_URL: model.url,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: '1',
  });
}

// Claude Code: `claude mcp add -s user` (every project, as the README
// says), `claude mcp list`, one `claude -p` turn.
export async function claude(model) {
  const { home, work } = place('claude');
  const env = claudeEnv(home, model);
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
    init && sameTools(init.tools.filter((t) => t.startsWith('mcp__progmux__')), 'mcp__progmux__'),
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
  const sent = {};
  if (last && modelLog().length > before)
    for (const r of progmuxResults(last))
      sent[r.tool] = r.text;
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
  if (!process.env.PROGMUX_COMMAND) {
    await claudeTasks(env, c, home, work);
    await claudeHosts(model, c);
    await claudeLease(model, c);
  }
}

// The progmux tool results in a request the client sent the model, in
// order: {tool (its name less mcp__progmux__), input, text}.
function progmuxResults(req) {
  const used = new Map();
  const out = [];
  for (const m of req ? req.body.messages || [] : [])
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (b.type === 'tool_use') used.set(b.id, b);
      const u = b.type === 'tool_result' ? used.get(b.tool_use_id) : null;
      if (u && u.name.startsWith('mcp__progmux__'))
        out.push({ tool: u.name.replace('mcp__progmux__', ''), input: u.input,
          text: typeof b.content === 'string' ? b.content :
            (b.content || []).map((x) => x.text || '').join('') });
    }
  return out;
}

// Claude Code drives two hosts through one entry: progmux given
// `--host a=...` and `--host b=...` (each a progmux of its own, robust,
// in a directory of its own, with HUBTEST_HOST set so its programs say
// where they run). The model, whose tools' host field lists "a, b",
// starts a program on each and lists them (model.mjs's hosts script):
// the starts answer with ids that carry their host, and list_programs,
// as the model was sent it, holds both, each with its host. What it was
// sent is printed: the list over two hosts as the model saw it.
async function claudeHosts(model, c) {
  const { home, work } = place('claude-hosts');
  const env = claudeEnv(home, model);
  const host = (name) => {
    const dir = path.join(home, `host-${name}`);
    mkdirSync(dir, { mode: 0o700 });
    return `${name}=exec env HUBTEST_HOST=${name} TMPDIR=${dir} ${bin} --robust`;
  };
  const add = await sh([c, 'mcp', 'add', '-s', 'user', 'progmux', '-e',
    'PROGMUX_ROBUST=1', '--', ...command, '--host', host('a'), '--host', host('b')],
    { env, cwd: work });
  check('claude (hosts): claude mcp add progmux --host a=... --host b=...', add.code === 0,
    add.stderr + add.stdout);
  const before = modelLog().length;
  const turn = await sh([c, '-p', 'Start a program on host a and on host b with progmux, ' +
    'then list the programs.', '--output-format', 'stream-json', '--verbose',
    '--allowedTools', 'mcp__progmux'], { env, cwd: work });
  const end = jsonLines(turn.stdout).find((e) => e.type === 'result');
  check('claude (hosts): the turn ends with the model\'s "finished"',
    turn.code === 0 && end && end.result === 'finished',
    end ? JSON.stringify(end).slice(0, 300) : turn.stderr);
  const reqs = modelLog().slice(before).filter((r) => r.api === 'anthropic');
  const offered = reqs.map((r) => JSON.stringify(r.body)).find((b) =>
    /Hosts: a, b\./.test(b));
  check('claude (hosts): the model was offered host, naming the hosts "a, b"',
    offered !== undefined, reqs.length ? JSON.stringify(reqs[reqs.length - 1].body).slice(0, 300) : 'no request');
  const last = reqs.filter((r) => typeof r.step === 'number').pop();
  const sent = progmuxResults(last).map((r) => [r.tool, r.text]);
  const starts = sent.filter(([t]) => t === 'start_program').map(([, s]) => asJson(s));
  check('claude (hosts): start_program on a and on b answered a:p1 and b:p1, each with its host',
    starts.length === 2 && starts[0] && starts[0].programId === 'a:p1' &&
    starts[0].host === 'a' && starts[1] && starts[1].programId === 'b:p1' &&
    starts[1].host === 'b', JSON.stringify(sent).slice(0, 600));
  const listed = sent.filter(([t]) => t === 'list_programs').map(([, s]) => s)[0];
  note(`claude (hosts): list_programs over two hosts, as the model saw it: ${listed}`);
  const l = asJson(listed);
  const progs = l && Array.isArray(l.programs) ? l.programs : [];
  check('claude (hosts): list_programs, as the model was sent it, holds a:p1 on a and b:p1 on b',
    progs.length === 2 && progs.some((p) => p.programId === 'a:p1' && p.host === 'a') &&
    progs.some((p) => p.programId === 'b:p1' && p.host === 'b'), listed);
}

// Claude Code's last scripted request since the model log held
// `before` records, or null.
function lastSince(before) {
  return modelLog().slice(before).filter((r) => r.api === 'anthropic' &&
    typeof r.step === 'number').pop() || null;
}

// A dev server outlives Claude Code on its lease and the next run adopts
// it. progmux in desktop mode on a private tmux server (tmux -S in the
// run directory, started and killed here), PROGMUX_ORPHAN_GRACE_MS=60000
// in its environment. Run 1 (`claude -p`, model.mjs's first lease
// script): start_program of a program printing "tick N" every 0.2 s,
// read_program until tick 3; the client exits, its progmux exits (waited
// for), and the program's reaper waits on a socket in the rendezvous.
// Run 2, the same set-up: list_programs, read_program from the start
// until the tick after the last run 1 saw, stop_program. From what
// Claude Code sent the model: the first result says the program was
// adopted (its "adopted": Claude Code sends the model a result's
// structured content, not its text, so the text's line saying so is
// test_lease's to check); the list holds it with run 1's id, argv,
// start and lifetime deadline, adopted; the read returns its whole text,
// "started" then every tick to the new one; the stop stops it. Then
// nothing of it is left: no process of its, no reaper of this tmux
// server, no pane but the test's own, no socket in the rendezvous.
async function claudeLease(model, c) {
  const { home, work } = place('claude-lease');
  const env = claudeEnv(home, model);
  const sock = path.join(run, 'claude-lease-tmux.sock');
  const tmux = (...a) => sh(['tmux', '-S', sock, ...a], { env, cwd: work });
  const up = await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'base');
  check('claude (lease): a private tmux server runs', up.code === 0, up.stderr);
  try {
    await leaseRuns(c, env, work, sock, tmux);
  } finally {
    const killed = await tmux('kill-server');
    check('claude (lease): the private tmux server is killed', killed.code === 0, killed.stderr);
  }
}

// claudeLease's two runs and its checks, on the tmux server sock.
async function leaseRuns(c, env, work, sock, tmux) {
  const onSock = `PROGMUX_SOCKET_PATH=${sock}`;
  const rendezvous = path.join(run, 'tmp', `progmux.lease.${process.getuid()}`);
  const add = await sh([c, 'mcp', 'add', '-s', 'user', 'progmux', '-e', onSock,
    '-e', 'PROGMUX_ORPHAN_GRACE_MS=60000', '--', ...command], { env, cwd: work });
  check('claude (lease): claude mcp add progmux (desktop mode, a grace of 60 s)',
    add.code === 0, add.stderr + add.stdout);
  const turn = async (prompt) => {
    const before = modelLog().length;
    const t = await sh([c, '-p', prompt, '--output-format', 'stream-json', '--verbose',
      '--allowedTools', 'mcp__progmux'], { env, cwd: work });
    const end = jsonLines(t.stdout).find((e) => e.type === 'result');
    // The first call was made between the last request of step 0 and
    // the first of step 1: [from, to].
    const reqs = modelLog().slice(before).filter((r) => r.api === 'anthropic');
    const s0 = reqs.filter((r) => r.step === 0).pop();
    const s1 = reqs.find((r) => r.step === 1);
    return { ok: t.code === 0 && end && end.result === 'finished',
      why: end ? JSON.stringify(end).slice(0, 300) : t.stderr,
      sent: progmuxResults(lastSince(before)),
      first: s0 && s1 ? [s0.at, s1.at] : [NaN, NaN] };
  };
  const fronts = () => processes().filter((p) => p.exe === bin && p.env.includes(onSock));

  const r1 = await turn('Start the dev server with progmux and leave it running.');
  check('claude (lease): run 1 ends with the model\'s "finished"', r1.ok, r1.why);
  const start = r1.sent.find((r) => r.tool === 'start_program');
  const s = asJson(start && start.text);
  const id = s && s.programId;
  const argv = start ? start.input.argv : [];
  const read1 = asJson((r1.sent.find((r) => r.tool === 'read_program') || {}).text);
  const text1 = read1 && typeof read1.text === 'string' ? read1.text : '';
  const ticks1 = [...text1.matchAll(/^tick (\d+)$/gm)].map((m) => Number(m[1]));
  const last1 = ticks1.length ? Math.max(...ticks1) : 0;
  check('claude (lease): run 1 started the dev server and read it to tick 3',
    typeof id === 'string' && /^started\ntick 1\n/.test(text1) && last1 >= 3,
    JSON.stringify(r1.sent).slice(0, 600));
  // Its progmux goes with it (the end of its input); the program stays,
  // its reaper listening in the rendezvous once it sees its front gone
  // (run 2 starts only then: before, it would find nothing to adopt).
  const gone = await waitFor(async () => fronts().length === 0, 15000);
  check('claude (lease): run 1\'s progmux exited with the client', gone,
    fronts().map((p) => p.pid).join(' '));
  const sockets = () => {
    let names = [];
    try {
      names = readdirSync(rendezvous);
    } catch (e) { /* not made */ }
    return names.filter((f) => {
      try {
        return lstatSync(path.join(rendezvous, f)).isSocket();
      } catch (e) {
        return false;	/* removed since */
      }
    });
  };
  const leased = await waitFor(async () => sockets().length === 1, 15000);
  check('claude (lease): the program waits on its lease: a socket in the rendezvous',
    leased, `${rendezvous}: ${sockets().join(' ') || 'none'}`);

  const r2 = await turn(`List progmux's programs, read the dev server until tick ${last1 + 1}, then stop it.`);
  check('claude (lease): run 2 ends with the model\'s "finished"', r2.ok, r2.why);
  const first = r2.sent[0] || { tool: 'none', text: '' };
  const l = first.tool === 'list_programs' ? asJson(first.text) : null;
  note(`claude (lease): run 2's first result, as the model saw it: ${first.text.slice(0, 600)}`);
  check(`claude (lease): run 2's first result, list_programs, says it adopted ${id} ("adopted")`,
    l && l.adopted && l.adopted.count === 1 && JSON.stringify(l.adopted.programIds) ===
      JSON.stringify([id]), first.text.slice(0, 600));
  const p = l && Array.isArray(l.programs) ? l.programs.find((e) => e.programId === id) : null;
  const started = p ? Date.parse(p.startedAt) : NaN;
  check(`claude (lease): list_programs in run 2 holds ${id}, adopted, with run 1's argv, running`,
    p && p.adopted === true && JSON.stringify(p.argv) === JSON.stringify(argv) &&
    p.outcome === 'running', JSON.stringify(l).slice(0, 600));
  // Run 1's start_program came in [a0, a1], run 2's list_programs in
  // [b0, b1]: its start is in the first, and its deadline, L after it,
  // is where the list's lifetimeLeftMs puts it (100 ms either side for
  // the milliseconds rounded).
  const [a0, a1] = r1.first;
  const [b0, b1] = r2.first;
  const L = s ? s.effectiveLifetimeMs : NaN;
  check('claude (lease): its start and its lifetime\'s deadline are run 1\'s',
    p && started >= a0 - 100 && started <= a1 + 100 &&
    b0 + p.lifetimeLeftMs <= a1 + L + 100 && b1 + p.lifetimeLeftMs >= a0 + L - 100,
    p ? `started ${p.startedAt}, start_program at ${new Date(a0).toISOString()}-` +
      `${new Date(a1).toISOString()} with ${L} ms; ${p.lifetimeLeftMs} ms left at ` +
      `${new Date(b0).toISOString()}-${new Date(b1).toISOString()}` : 'not listed');
  const read2 = r2.sent.find((r) => r.tool === 'read_program');
  const d = asJson(read2 && read2.text);
  const want = ['started', ...Array.from({ length: last1 + 1 }, (_, i) => `tick ${i + 1}`)];
  check(`claude (lease): read_program in run 2 returned its whole text, to tick ${last1 + 1}, new since run 1`,
    read2 && read2.input.programId === id && d && d.matched === true &&
    d.text === want.join('\n') + '\n' && d.text.startsWith(text1),
    read2 ? read2.text.slice(-400) : 'no read_program');
  const stop = asJson((r2.sent.find((r) => r.tool === 'stop_program') || {}).text);
  check(`claude (lease): stop_program in run 2 stopped ${id}`,
    stop && stop.programId === id && stop.outcome === 'stopped', JSON.stringify(stop));

  // Nothing of it left; then the tmux server goes.
  // Its processes: those whose command line holds its script (model.mjs's
  // DEV_ARGV ends with these words).
  const mark = argv[argv.length - 1] || 'progmux lease dev server';
  const left = async () => {
    const ps = processes().filter((q) => q.cmd.includes(mark) ||
      (q.exe === reaper && q.env.includes(onSock))).map((q) => q.pid);
    const panes = (await tmux('list-panes', '-a', '-F', '#{session_name} #{pane_id}'))
      .stdout.split('\n').filter((x) => x && !x.startsWith('base '));
    return [...ps.map((q) => `process ${q}`), ...panes.map((x) => `pane ${x}`),
      ...sockets().map((f) => `socket ${f}`), ...fronts().map((q) => `progmux ${q.pid}`)];
  };
  const clean = await waitFor(async () => (await left()).length === 0, 15000);
  check('claude (lease): nothing of the dev server is left: no progmux, program, reaper, pane or lease socket',
    clean, (await left()).join(', '));
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
  const named = /MCP task ([0-9a-f]{32}) \(progmux\/run_program\) completed/.exec(msg);
  check('claude (interactive): it came as the completion of an MCP task', named !== null, shown.slice(-600));
  const log = debugLines(debugLog);
  if (process.env.CLAUDE_DEBUG_COPY) writeFileSync(process.env.CLAUDE_DEBUG_COPY, log.join('\n'));
  const came = log.filter((l) => / in: /.test(l)).map((l) => l.replace(/^.* in: /, ''));
  checkModern('claude (interactive)', log, came,
    came.find((l) => /"method":"server\/discover"/.test(l)));
  // The task made for the 20-second call: the first made after that
  // call came in (progmux's log names no call beside a task), the one
  // Claude Code named to the model.
  const at = log.findIndex((l) => / in: /.test(l) && /"method":"tools\/call"/.test(l) && l.includes('sleep 20'));
  const made = at < 0 ? null : log.slice(at).map((l) => / task ([0-9a-f]{32}) for a 2026-07-28 call/.exec(l)).find(Boolean);
  const id = made ? made[1] : null;
  const polled = id && came.find((l) => /"method":"tasks\/get"/.test(l) && l.includes(id));
  if (polled) note(`claude sent (progmux's debug log): ${polled}`);
  check('claude (interactive): progmux\'s debug log: the slow run_program declared the tasks extension, became the task Claude Code named, tasks/get polled that task, it completed',
    at >= 0 && log[at].includes('"io.modelcontextprotocol/tasks"') && id !== null &&
    named !== null && named[1] === id && polled && log.some((l) => l.includes(`task ${id} completed`)),
    `named ${named && named[1]}; ${log.filter((l) => / task /.test(l)).join(' | ') || 'no task'}`);
}
