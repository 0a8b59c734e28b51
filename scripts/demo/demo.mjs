#!/usr/bin/env node
// demo.mjs — a short scripted progmux session that a person can watch.
//
//	node scripts/demo/demo.mjs		(make demo)
//	DEMO_FAST=1 node scripts/demo/demo.mjs	(no pauses)
//
// It drives build/progmux over stdio the way an MCP client does, on a
// private tmux server (tmux -S <tmpdir>/tmux.sock -f /dev/null) that it
// starts first and kills at the end; the default tmux server is never
// touched. Each request is printed on one line (method or tool, then its
// arguments), each reply as its text content, indented, followed by the
// structuredContent fields that matter. The session: initialize,
// tools/list, start_program of a program that prints colour and a
// carriage-return progress bar, read_program page by page with the cursor
// (maxLines 3), capture_pane on its pane beside the cleaned text,
// stop_program, run_program ["echo","hi"], list_programs.
//
// Environment: PROGMUX_BIN (default build/progmux beside this script's
// directory), DEMO_FAST=1 (no pauses), NO_COLOR (plain output).
// Exit status: 0 when every call succeeded and progmux exited 0; 1 otherwise.
// No npm packages: only node's own modules.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.resolve(process.env.PROGMUX_BIN || path.join(ROOT, 'build', 'progmux'));
const FAST = !!process.env.DEMO_FAST && process.env.DEMO_FAST !== '0';
const COLOR = process.stdout.isTTY && !process.env.NO_COLOR;
const CALL_TIMEOUT_MS = 45000;

const paint = (code) => (s) => (COLOR ? `\x1b[${code}m${s}\x1b[0m` : String(s));
const bold = paint('1');
const dim = paint('2');
const cyan = paint('36');
const green = paint('32');
const red = paint('31');
const yellow = paint('33');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pause = (ms = 700) => (FAST ? Promise.resolve() : sleep(ms));

let failures = 0;
let tmpdir = null;
let sock = null;
let server = null;

function fail(msg) {
	failures++;
	console.log(red(`  ✗ ${msg}`));
}

function indent(text, prefix = '    ') {
	if (text === undefined || text === null) return '';
	const lines = String(text).replace(/\n$/, '').split('\n');
	return lines.map((l) => prefix + l).join('\n');
}

// Show a string with its control characters visible, for argv.
function brief(v) {
	return JSON.stringify(v);
}

// ---- the private tmux server ---------------------------------------------

function tmux(...args) {
	return spawnSync('tmux', ['-S', sock, ...args], { encoding: 'utf8' });
}

function startTmux() {
	tmpdir = fs.mkdtempSync(path.join(os.tmpdir(), 'progmux-demo-'));
	sock = path.join(tmpdir, 'tmux.sock');
	const r = spawnSync('tmux', ['-S', sock, '-f', '/dev/null', 'new-session', '-d',
		'-s', 'base', '-x', '100', '-y', '30'], { encoding: 'utf8' });
	if (r.error || r.status !== 0) {
		throw new Error(`cannot start a private tmux server: ${r.error ? r.error.message : r.stderr.trim()}`);
	}
}

function cleanup() {
	if (server && server.exitCode === null && server.signalCode === null) {
		try { server.kill('SIGTERM'); } catch { /* already gone */ }
	}
	if (sock) {
		tmux('kill-server');
		sock = null;
	}
	if (tmpdir) {
		fs.rmSync(tmpdir, { recursive: true, force: true });
		tmpdir = null;
	}
}

// ---- the MCP client --------------------------------------------------------

let nextId = 1;
const waiting = new Map();
let serverExit = null;

function startServer() {
	const env = { ...process.env, PROGMUX_SOCKET_PATH: sock };
	// Only our socket: nothing else may point it elsewhere.
	for (const k of ['PROGMUX_SOCKET_NAME', 'LIBTMUX_SOCKET_NAME', 'LIBTMUX_SOCKET_PATH',
		'PROGMUX_ROBUST', 'PROGMUX_SESSION', 'TMUX', 'TMUX_PANE']) delete env[k];
	server = spawn(BIN, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
	serverExit = new Promise((resolve) => {
		server.on('exit', (code, signal) => {
			// Nothing more will come: fail what still waits.
			for (const [, w] of waiting) {
				clearTimeout(w.timer);
				w.reject(new Error(`progmux exited (${signal || code}) before replying`));
			}
			waiting.clear();
			resolve({ code, signal });
		});
	});
	server.on('error', (e) => {
		fail(`cannot run ${BIN}: ${e.message} (run make all first)`);
		for (const [, w] of waiting) w.reject(e);
		waiting.clear();
	});
	let out = '';
	server.stdout.setEncoding('utf8');
	server.stdout.on('data', (chunk) => {
		out += chunk;
		let nl;
		while ((nl = out.indexOf('\n')) !== -1) {
			const line = out.slice(0, nl);
			out = out.slice(nl + 1);
			if (line.trim() === '') continue;
			let msg;
			try {
				msg = JSON.parse(line);
			} catch {
				fail(`stdout carried a line that is not JSON: ${line}`);
				continue;
			}
			const w = msg.id !== undefined ? waiting.get(msg.id) : undefined;
			if (w) {
				waiting.delete(msg.id);
				clearTimeout(w.timer);
				w.resolve(msg);
			} else if (msg.method) {
				console.log(dim(`  (notification ${msg.method})`));
			}
		}
	});
	let err = '';
	server.stderr.setEncoding('utf8');
	server.stderr.on('data', (chunk) => {
		err += chunk;
		let nl;
		while ((nl = err.indexOf('\n')) !== -1) {
			console.log(dim(`  stderr│ ${err.slice(0, nl)}`));
			err = err.slice(nl + 1);
		}
	});
}

function send(msg) {
	server.stdin.write(JSON.stringify(msg) + '\n');
}

function request(method, params) {
	const id = nextId++;
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			waiting.delete(id);
			reject(new Error(`${method}: no reply within ${CALL_TIMEOUT_MS} ms`));
		}, CALL_TIMEOUT_MS);
		waiting.set(id, { resolve, reject, timer });
		send({ jsonrpc: '2.0', id, method, params });
	});
}

// Call a tool, print the request and the reply; returns structuredContent
// (or null when the call failed, which counts as a failure).
async function call(tool, args, fields) {
	console.log(`${cyan('→')} ${bold(tool)} ${brief(args)}`);
	let reply;
	try {
		reply = await request('tools/call', { name: tool, arguments: args });
	} catch (e) {
		fail(e.message);
		return null;
	}
	if (reply.error) {
		fail(`${tool}: JSON-RPC error ${reply.error.code}: ${reply.error.message}`);
		return null;
	}
	const res = reply.result || {};
	const text = (res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
	console.log(`${green('←')} ${dim('text:')}`);
	console.log(indent(text));
	if (res.isError) {
		fail(`${tool} returned isError`);
		return null;
	}
	const sc = res.structuredContent || {};
	const shown = (fields || Object.keys(sc)).filter((k) => k in sc);
	if (shown.length > 0) {
		console.log(`  ${dim('structuredContent:')} ${shown.map((k) => `${k}=${yellow(JSON.stringify(sc[k]))}`).join(' ')}`);
	}
	return sc;
}

function step(title) {
	console.log('');
	console.log(bold(`── ${title} ${'─'.repeat(Math.max(0, 66 - title.length))}`));
}

// Two columns: what read_program returned next to what capture_pane shows.
function sideBySide(leftTitle, left, rightTitle, right) {
	const l = left.replace(/\n$/, '').split('\n');
	const r = right.replace(/\n$/, '').split('\n');
	const w = Math.max(leftTitle.length, ...l.map((s) => [...s].length)) + 4;
	const pad = (s) => s + ' '.repeat(Math.max(0, w - [...s].length));
	console.log(`    ${bold(pad(leftTitle))}${bold(rightTitle)}`);
	for (let i = 0; i < Math.max(l.length, r.length); i++) {
		console.log(`    ${pad(l[i] ?? '')}${r[i] ?? ''}`);
	}
}

// ---- the session -----------------------------------------------------------

const PROGRAM = [
	'sh', '-c',
	"printf '\\033[32mgreen\\033[0m and plain\\n'; " +
	"for i in 1 2 3 4 5; do printf '\\rprogress %d/5' $i; sleep 0.2; done; " +
	"printf '\\ndone\\n'; sleep 30",
];

async function main() {
	if (!fs.existsSync(BIN)) {
		console.error(`demo: ${BIN} is missing: run make all first`);
		return 1;
	}
	startTmux();
	console.log(bold('progmux demo') + dim(` — ${BIN}`));
	console.log(dim(`private tmux server: tmux -S ${sock} (killed at the end)`));
	startServer();

	step('initialize');
	console.log(`${cyan('→')} ${bold('initialize')} {"protocolVersion":"2025-06-18"}`);
	let init;
	try {
		init = await request('initialize', {
			protocolVersion: '2025-06-18',
			capabilities: {},
			clientInfo: { name: 'progmux-demo', version: '1' },
		});
	} catch (e) {
		fail(e.message);
		return 1;
	}
	if (init.error) {
		fail(`initialize: ${init.error.message}`);
		return 1;
	}
	const si = init.result.serverInfo || {};
	console.log(`${green('←')} ${si.name} ${si.version}, protocol ${init.result.protocolVersion}, ` +
		`capabilities ${Object.keys(init.result.capabilities || {}).join(', ')}`);
	if (init.result.instructions) console.log(indent(init.result.instructions.slice(0, 160) + '…'));
	send({ jsonrpc: '2.0', method: 'notifications/initialized' });
	await pause();

	step('tools/list');
	console.log(`${cyan('→')} ${bold('tools/list')}`);
	const list = await request('tools/list', {}).catch((e) => ({ error: { message: e.message } }));
	if (list.error) {
		fail(`tools/list: ${list.error.message}`);
	} else {
		for (const t of list.result.tools) console.log(`    ${t.name.padEnd(15)} ${dim(t.title || '')}`);
	}
	await pause();

	step('start_program: colour and a carriage-return progress bar');
	const started = await call('start_program', { argv: PROGRAM, width: 40, height: 8 },
		['programId', 'paneId', 'effectiveLifetimeMs']);
	if (!started) return 1;
	// Let it print for a moment (even with DEMO_FAST), so pages fill up.
	await sleep(1300);

	step('read_program, three lines a page, following the cursor');
	let cursor;
	let stream = '';
	for (let page = 1; page <= 20; page++) {
		const args = { programId: started.programId, maxLines: 3, timeoutMs: 5000 };
		if (cursor !== undefined) args.cursor = cursor;
		const r = await call('read_program', args, ['cursor', 'ended', 'outcome', 'exitStatus']);
		if (!r) break;
		stream += r.text;
		if (r.cursor === cursor || r.text === '') {
			fail('read_program timed out before the program printed "done"');
			break;
		}
		cursor = r.cursor;
		if (r.ended || /(^|\n)done\n/.test(stream)) break;
		await pause(500);
	}
	await pause();

	step('capture_pane: the screen itself, next to the cleaned stream');
	const cap = await call('capture_pane', { paneId: started.paneId }, ['totalLines', 'droppedLines']);
	if (cap) {
		console.log('');
		sideBySide('read_program (every state)', stream, 'capture_pane (the screen now)', cap.text);
		if (!/progress 1\/5\nprogress 2\/5/.test(stream)) fail('the stream should hold each progress state as a line');
		if (!stream.startsWith('green and plain\n')) fail('the colour should be gone from the stream');
		if (!/progress 5\/5/.test(cap.text)) fail('the screen should show the last progress state');
	}
	await pause(1500);

	step('stop_program: it still sleeps; end it and remove its pane');
	const stopped = await call('stop_program', { programId: started.programId },
		['wasRunning', 'outcome', 'exitStatus', 'signal']);
	if (stopped && (!stopped.wasRunning || stopped.outcome !== 'stopped')) fail('stop_program should have stopped a running program');
	await pause();

	step('run_program: start, wait and read in one call');
	const ran = await call('run_program', { argv: ['echo', 'hi'] },
		['outcome', 'exitStatus', 'text', 'outputComplete']);
	if (ran && (ran.text !== 'hi\n' || ran.exitStatus !== 0)) fail('run_program ["echo","hi"] should print hi and exit 0');
	await pause();

	step('list_programs: nothing is left');
	const left = await call('list_programs', {}, ['programs']);
	if (left && left.programs.length !== 0) fail('no program should be left');

	step('end of input: progmux ends everything and exits');
	server.stdin.end();
	const ex = await Promise.race([serverExit, sleep(5000).then(() => null)]);
	if (ex === null) {
		fail('progmux did not exit within 5 s of end of input');
	} else if (ex.code !== 0) {
		fail(`progmux exited with ${ex.signal || ex.code}`);
	} else {
		console.log(`    progmux exited 0`);
	}
	return failures === 0 ? 0 : 1;
}

for (const sig of ['SIGINT', 'SIGTERM']) {
	process.on(sig, () => {
		cleanup();
		process.exit(130);
	});
}

let rc;
try {
	rc = await main();
} catch (e) {
	fail(e.message);
	rc = 1;
} finally {
	cleanup();
}
console.log('');
console.log(rc === 0 && failures === 0 ? green('demo: every call succeeded') : red(failures > 0 ? `demo: ${failures} failure(s)` : 'demo: failed'));
process.exit(rc === 0 && failures === 0 ? 0 : 1);
