// gemini.mjs — Gemini CLI: `gemini mcp add --trust`, `gemini mcp list`,
// one `gemini -p` turn, and an interactive session for @ resources.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  bin, command, binDir, PROMPT, TOOLS, run, check, note, clientEnv, sh,
  jsonLines, modelLog, lastScripted, place, healthLine, debugLines,
  paneClient, waitFor
} from './common.mjs';

// Gemini CLI: `gemini mcp add --trust`, the folder trusted as its dialog
// does, `gemini mcp list`, one `gemini -p` turn.
export async function gemini(model) {
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
  // CLI listed the resources again, after that start came in.
  const relisted = await wait(async () => {
    const log = debugLines(debugLog);
    const at = log.findIndex((l) => / in: /.test(l) && /"name":"start_program"/.test(l));
    return at >= 0 && log.slice(at).some((l) => /request \S+: resources\/list /.test(l));
  }, 10000);
  check('gemini (interactive): the first turn started a program and Gemini CLI listed the resources again',
    started && relisted, (await screen()).slice(-800));
  const id = (debugLines(debugLog).map((l) => /"programId\\":\\"(p\d+)\\"/.exec(l) ||
    /programId (p\d+)/.exec(l)).filter(Boolean).pop() || [])[1] ||
    modelLog().slice(before).map((r) => /programId[^p]*(p\d+)/.exec(JSON.stringify(r.body)))
      .filter(Boolean).map((m) => m[1]).pop();
  const uri = `progmux://programs/${id}/output`;
  // The first turn over (the model's "finished" shown, the input box
  // back): keys typed while it still renders are lost.
  await wait(async () => { const s = await screen();
    return /finished/.test(s) && /Type your message/.test(s); }, 30000);
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
