// claude.mjs — Claude Code: `claude mcp add -s user`, `claude mcp list`,
// one `claude -p` turn, an interactive turn in a pane for the tasks
// extension, and a turn on two hosts through one progmux.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  bin, command, binDir, PROMPT, sameTools, run, check, note, clientEnv, sh,
  jsonLines, modelLog, lastScripted, checkStructured, place, healthLine,
  debugLines, paneClient, waitFor, asJson
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
  if (!process.env.PROGMUX_COMMAND) {
    await claudeTasks(env, c, home, work);
    await claudeHosts(model, c);
  }
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
  const used = new Map();
  const sent = [];
  for (const m of last ? last.body.messages || [] : [])
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (b.type === 'tool_use') used.set(b.id, b.name);
      if (b.type === 'tool_result' && /progmux/.test(used.get(b.tool_use_id) || ''))
        sent.push([used.get(b.tool_use_id).replace('mcp__progmux__', ''),
          typeof b.content === 'string' ? b.content :
            (b.content || []).map((x) => x.text || '').join('')]);
    }
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
