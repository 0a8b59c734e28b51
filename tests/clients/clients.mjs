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
// its wait_for_previous field) and then ends with "finished" (Claude
// Code, besides, in desktop mode on a private tmux server of its own: a
// program started in one run outlives it on its lease and the next run
// adopts it; see claude.mjs). opencode, Kilo, Qwen Code, GitHub Copilot
// CLI and Cline speak OpenAI Chat Completions: the model starts a program
// that prints the prompt "name? " and reads a line, reads it
// (read_program returns once it waits for input), answers it with one
// send_keys carrying timeoutMs (whose reply is the program's "hello
// progmux" and its end), and ends with "finished".
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
//
// Each client has its file (claude.mjs, gemini.mjs, codex.mjs, opencode.mjs
// with Kilo, qwen.mjs, copilot.mjs, cline.mjs, inspector.mjs); what they
// share is common.mjs.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  bin, binDir, passed, failed, run, children, check, startModel, nothingLeft
} from './common.mjs';
import { claude } from './claude.mjs';
import { gemini } from './gemini.mjs';
import { codex } from './codex.mjs';
import { opencode, kilo } from './opencode.mjs';
import { qwen } from './qwen.mjs';
import { copilot } from './copilot.mjs';
import { cline } from './cline.mjs';
import { inspector } from './inspector.mjs';

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
  const clients = [['claude', claude], ['gemini', gemini],
    ['codex', codex], ['opencode', opencode], ['kilo', kilo],
    ['qwen', qwen], ['copilot', copilot],
    ['cline', cline], ['inspector', inspector]];
  // A name CLIENTS gives that is no client would test nothing.
  const unknown = (only || []).filter((n) => !clients.some(([c]) => c === n));
  if (unknown.length > 0)
    throw new Error(`CLIENTS names no client ${unknown.join(',')} (they are ${clients.map(([c]) => c).join(',')})`);
  model = await startModel();
  for (const [name, fn] of clients) {
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
