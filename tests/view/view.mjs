// view.mjs — the view (ui://progmux/view) in a real browser, inside the
// MCP Apps SDK's own host side, against a real progmux:
//
//   - the host's MCP client is the official 2.x client (@modelcontextprotocol
//     /client), run in each protocol era, declaring io.modelcontextprotocol/ui;
//     its tools/list, read with the SDK's own helpers
//     (@modelcontextprotocol/ext-apps/app-bridge), links start_program to
//     the view and makes view_update the view's alone;
//   - the view is read with resources/read and loaded by Debian's chromium
//     (headless, puppeteer-core) into a sandboxed iframe (allow-scripts,
//     its own origin) of a host page, served with the extension's default
//     Content-Security-Policy; the SDK's AppBridge (with that client) talks
//     to it over postMessage, passed between the page and this process;
//   - the host "model" calls start_program: the bridge gives the view the
//     call's input and result. The program prints a coloured line, then
//     waits for a line of input; once the view's call has waited half a
//     second for a change, keys typed make it print a marker, which must
//     be in the view's output and on its screen (and the screen's cursor
//     drawn) within a second of send_keys' answer; the
//     Ctrl-C button makes the program print what its trap prints; the Stop
//     button ends it (list_programs no longer has it, its pane is gone);
//   - the page has no element that takes typed text;
//   - every JavaScript error, console error, failed or outside request and
//     Content-Security-Policy violation of the page is a failure.
//
// The page as rendered is kept as build/view/view-ERA.png.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import puppeteer from 'puppeteer-core';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  AppBridge, getToolUiResourceUri, isToolVisibilityAppOnly, isToolVisibilityModelOnly, RESOURCE_MIME_TYPE,
} from '@modelcontextprotocol/ext-apps/app-bridge';

import { check, finishBrowserRun, progmuxEnv, startBrowserRun, step } from '../e2e/tap.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.resolve(root, process.env.PROGMUX_BIN || 'build/progmux');
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const tmuxBin = process.env.PROGMUX_TEST_TMUX || 'tmux';
const art = path.join(root, 'build', 'view');
const overall = Number(process.env.VIEW_TIMEOUT_MS || 180000);
const LIVE_MS = 1000;	// what the issue asks: new output in the page within a second
const QUIET_MS = 500;	// the view's call held this long: it waits for a change

const HOST = 'http://host.progmux.test';
const VIEW = 'http://view.progmux.test';
// MCP Apps' restrictive default (specification 2026-01-26, "Host Behavior"):
// what a host applies to a view that declares no ui.csp, as ours does not.
const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'";
const UI_CAPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } };

// The host page: a sandboxed iframe for the view, and postMessage passed
// to and from this process (fromView, exposed; toView, called).
const HOST_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>host</title></head>
<body style="margin:0"><iframe id="view" sandbox="allow-scripts" style="border:0;width:900px;height:400px"></iframe>
<script>
const f = document.getElementById('view');
window.addEventListener('message', (e) => { if (e.source === f.contentWindow) window.fromView(e.data); });
window.toView = (m) => f.contentWindow.postMessage(m, '*');
window.loadView = () => new Promise((r) => { f.onload = r; f.src = '${VIEW}/view.html'; });
window.resizeView = (h) => { f.style.height = Math.min(Math.max(h, 200), 2000) + 'px'; };
</script></body></html>`;

// A transport for the bridge: its messages go to the view through the host
// page, the view's come back through fromView.
class PageTransport {
  constructor(page) { this.page = page; }
  async start() {}
  async send(message) {
    await this.page.evaluate((m) => window.toView(m), message);
  }
  async close() { if (this.onclose) this.onclose(); }
}

const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

// The program: a coloured line, a prompt; each line typed is echoed with
// a marker; Ctrl-C (SIGINT to its group) runs its trap.
const SCRIPT = [
  "trap 'echo caught-INT' INT",
  "printf '\\033[1;31mred-word\\033[0m plain\\n'",
  'while :; do printf "type> "; if read -r x; then echo "got-$x"; fi; done',
].join('\n');

async function withTimeout(p, ms, what) {
  let t;
  const limit = new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms); });
  try { return await Promise.race([p, limit]); } finally { clearTimeout(t); }
}

async function run(ctx, era) {
  const tag = era === 'modern' ? '2026-07-28' : '2025-11-25';
  const errors = [];
  const client = new Client({ name: `progmux-view-${tag}`, version: '1.0.0' },
    { capabilities: UI_CAPS, ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {}) });
  const env = { ...progmuxEnv(ctx.sock, ctx.dir, tmuxBin), PROGMUX_SESSION: `view-${era}` };
  const transport = new StdioClientTransport({ command: bin, args: [], env, stderr: 'pipe' });
  if (transport.stderr) transport.stderr.on('data', (d) => { ctx.stderr += d.toString(); });
  if (!await step(`${tag}: the host's client connects declaring ${Object.keys(UI_CAPS.extensions)[0]}`, async () => {
    await client.connect(transport);
    const v = client.getNegotiatedProtocolVersion();
    if (v !== tag) return `negotiated ${v}`;
  })) return;
  let tools = [];
  await step(`${tag}: tools/list: start_program, run_program and list_programs open the view; view_update is the view's alone`, async () => {
    tools = (await client.listTools()).tools;
    const uri = (n) => getToolUiResourceUri(tools.find((t) => t.name === n) || {});
    for (const n of ['start_program', 'run_program', 'list_programs'])
      if (uri(n) !== 'ui://progmux/view') return `${n}: ${uri(n)}`;
    const t = tools.find((x) => x.name === 'start_program');
    if (t._meta['ui/resourceUri'] !== 'ui://progmux/view') return 'no flat ui/resourceUri';
    const v = tools.find((x) => x.name === 'view_update');
    if (!v || !isToolVisibilityAppOnly(v)) return `view_update: ${JSON.stringify(v && v._meta && v._meta.ui)}`;
    if (tools.some((x) => x.name !== 'view_update' && (isToolVisibilityAppOnly(x) || isToolVisibilityModelOnly(x))))
      return 'another tool is not for both model and view';
  });
  let html = '';
  if (!await step(`${tag}: resources/read ui://progmux/view: one HTML page, ${RESOURCE_MIME_TYPE}, no ui.csp`, async () => {
    const r = await client.readResource({ uri: 'ui://progmux/view' });
    const c = r.contents[0];
    if (c.mimeType !== RESOURCE_MIME_TYPE) return c.mimeType;
    if (c._meta && c._meta.ui && c._meta.ui.csp) return `it declares ${JSON.stringify(c._meta.ui.csp)}`;
    html = c.text;
    if (!/^<!DOCTYPE html>/i.test(html)) return html.slice(0, 80);
    if (/<script[^>]+src=|<link[^>]+href=|https?:\/\//i.test(html.replace(/<!--[\s\S]*?-->/g, '')))
      return 'it names something to fetch';
  })) { await client.close(); return; }

  // The host page, and the view in it with the default policy.
  const page = await ctx.browser.newPage();
  await page.setViewport({ width: 920, height: 720 });
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const u = req.url();
    if (u === `${HOST}/`) req.respond({ status: 200, contentType: 'text/html', body: HOST_PAGE });
    else if (u === `${HOST}/favicon.ico`)
      req.respond({ status: 204, body: '' });	// the host page's, not the view's
    else if (u === `${VIEW}/view.html`)
      req.respond({ status: 200, contentType: 'text/html; charset=utf-8', headers: { 'Content-Security-Policy': DEFAULT_CSP }, body: html });
    else {
      errors.push(`request to ${u}`);
      req.abort();
    }
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') errors.push(`console ${m.type()}: ${m.text()}`); });
  page.on('requestfailed', (r) => { if (!errors.some((e) => e.includes(r.url()))) errors.push(`failed: ${r.url()}`); });
  // The bridge passes the view's calls to the server through the host's
  // client, as its own forwarding does, after the check a host makes of
  // who may call what (the extension's "Visibility").
  const bridge = new AppBridge(null, { name: 'progmux-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, logging: {} }, { hostContext: { theme: 'dark', displayMode: 'inline', platform: 'desktop' } });
  const viewCalls = [];
  const waiting = new Set();	// the view's view_update calls not yet answered
  bridge.oncalltool = async (params, extra) => {
    viewCalls.push(params.name);
    const t = tools.find((x) => x.name === params.name);
    if (!t || isToolVisibilityModelOnly(t)) throw new Error(`${params.name} is not the view's to call`);
    const call = { since: Date.now() };
    if (params.name === 'view_update') waiting.add(call);
    try {
      return await client.request({ method: 'tools/call', params }, { signal: extra.mcpReq.signal });
    } finally {
      waiting.delete(call);
    }
  };
  // The view is waiting for a change: its view_update has been held by
  // the server QUIET_MS (so a change that comes now must wake that call).
  const settled = async () => {
    const end = Date.now() + 10000;
    while (![...waiting].some((c) => Date.now() - c.since >= QUIET_MS)) {
      if (Date.now() > end) throw new Error(`the view never waited ${QUIET_MS} ms for a change`);
      await sleep(25);
    }
  };
  bridge.onreadresource = async (params, extra) => client.request({ method: 'resources/read', params },
    { signal: extra.mcpReq.signal });
  const pt = new PageTransport(page);
  await page.exposeFunction('fromView', (m) => { if (pt.onmessage) pt.onmessage(m); });
  await page.goto(`${HOST}/`, { waitUntil: 'load' });
  const initialized = new Promise((r) => { bridge.oninitialized = r; });
  bridge.onsizechange = ({ height }) => { if (height) page.evaluate((h) => window.resizeView(h), height).catch(() => {}); };
  await bridge.connect(pt);
  await page.evaluate(() => window.loadView());
  const frame = () => page.frames().find((f) => f.url().startsWith(VIEW));
  if (!await step(`${tag}: the view loads and completes ui/initialize`, async () => {
    await withTimeout(initialized, 10000, 'ui/notifications/initialized');
  })) {
    await page.close(); await client.close(); return;
  }

  // The model's call: start_program; the host gives the view its input and result.
  const args = { argv: ['sh', '-c', SCRIPT] };
  let prog;
  await step(`${tag}: start_program; the view is given its input and result`, async () => {
    await bridge.sendToolInput({ arguments: args });
    const r = await client.callTool({ name: 'start_program', arguments: args });
    prog = r.structuredContent;
    await bridge.sendToolResult(r);
  });
  if (!prog) { await page.close(); await client.close(); return; }
  await step(`${tag}: the view lists ${prog.programId} and shows its screen, the coloured word in red and bold`, async () => {
    const f = frame();
    await f.waitForFunction((id) => [...document.querySelectorAll('#list tr')].some((tr) => tr.dataset.id === id) &&
      document.querySelector('#title').textContent.startsWith(id + ':'), { timeout: 10000 }, prog.programId);
    await f.waitForFunction(() => /^type> +$/m.test(document.querySelector('#screen').textContent), { timeout: 10000 });
    const red = await f.evaluate(() => {
      const s = [...document.querySelectorAll('#screen span')].find((e) => e.textContent.includes('red-word'));
      return s ? getComputedStyle(s).color + ' ' + getComputedStyle(s).fontWeight : null;
    });
    // SGR 1;31 with bright colours not forced: xterm's red, #cd0000.
    if (red !== 'rgb(205, 0, 0) 700') return `red-word: ${red}`;
  });
  let latency = -1;
  await step(`${tag}: a line typed: the program's answer is in the view's output and on its screen, cursor drawn, within ${LIVE_MS} ms`, async () => {
    const f = frame();
    await settled();
    await client.callTool({ name: 'send_keys', arguments: { paneId: prog.paneId, keys: 'marker-42' } });
    const t0 = Date.now();
    await f.waitForFunction(() => {
      const out = [...document.querySelectorAll('#out .line')].some((d) => d.textContent === 'got-marker-42');
      const scr = /^got-marker-42$/m.test(document.querySelector('#screen').textContent);
      const cur = document.querySelector('#screen .cur.on');
      return out && scr && cur !== null;
    }, { timeout: LIVE_MS, polling: 'mutation' });
    latency = Date.now() - t0;
    console.log(`# ${tag}: the answer reached the page ${latency} ms after send_keys answered`);
    // The cursor is drawn after the new prompt, as tmux has it.
    const at = await f.evaluate(() => {
      let before = '';
      for (const n of document.querySelector('#screen').childNodes) {
        if (n.classList && n.classList.contains('cur')) break;
        before += n.textContent;
      }
      const lines = before.split('\n');
      return { y: lines.length - 1, text: lines[lines.length - 1] };
    });
    if (at.text !== 'type> ') return `cursor after "${at.text}" on line ${at.y}`;
  });
  await step(`${tag}: the Ctrl-C button: send_keys C-c, the program's trap prints`, async () => {
    const f = frame();
    await f.click('#interrupt');
    await f.waitForFunction(() => [...document.querySelectorAll('#out .line')].some((d) => /caught-INT$/.test(d.textContent)),
      { timeout: 10000 });
    if (!viewCalls.includes('send_keys')) return `the view called ${viewCalls.join(', ')}`;
  });
  await step(`${tag}: the view takes no typed text (a password goes through ask_user_secret's page only)`, async () => {
    const n = await frame().evaluate(() => document.querySelectorAll('input, textarea, select, [contenteditable]').length);
    if (n !== 0) return `${n} input elements`;
  });
  mkdirSync(art, { recursive: true });
  const shot = path.join(art, `view-${tag}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`# ${tag}: screenshot ${path.relative(root, shot)}`);
  await step(`${tag}: the Stop button: stop_program, the program is gone and the view says so`, async () => {
    const f = frame();
    await f.click('#stop');
    await f.waitForFunction((id) => document.querySelector('#detail').hidden &&
      ![...document.querySelectorAll('#list tr')].some((tr) => tr.dataset.id === id), { timeout: 10000 }, prog.programId);
    if (!viewCalls.includes('stop_program')) return `the view called ${viewCalls.join(', ')}`;
    const l = await client.callTool({ name: 'list_programs', arguments: {} });
    if (l.structuredContent.programs.some((p) => p.programId === prog.programId)) return 'still listed';
    const panes = execFileSync(tmuxBin, ['-S', ctx.sock, 'list-panes', '-a', '-F', '#{pane_id}']).toString();
    if (panes.split('\n').includes(prog.paneId)) return `${prog.paneId} is still there`;
  });
  await step(`${tag}: the view called only view_update, send_keys and stop_program`, () => {
    const other = [...new Set(viewCalls)].filter((n) => !['view_update', 'send_keys', 'stop_program'].includes(n));
    if (other.length) return other.join(', ');
    if (!viewCalls.includes('view_update')) return 'never view_update';
  });
  await bridge.teardownResource({}).catch((e) => errors.push(`teardown: ${e.message}`));
  check(`${tag}: no JavaScript error, console error, outside request or policy violation`, errors.length === 0, errors.join('; '));
  await page.close();
  await client.close();
  ctx.latency.push(latency);
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'progmux-view-'));
  const ctx = { dir, sock: path.join(dir, 'tmux.sock'), stderr: '', latency: [] };
  const guard = setTimeout(() => {
    check(`whole run within ${overall} ms`, false, 'timed out');
    finish(ctx).then(() => process.exit(1));
  }, overall);
  try {
    await startBrowserRun(ctx, { puppeteer, tmuxBin, chromium, profile: path.join(dir, 'chrome') });
    await run(ctx, 'legacy');
    await run(ctx, 'modern');
  } catch (e) {
    check('view run', false, e && e.stack ? e.stack : e);
  }
  clearTimeout(guard);
  await finish(ctx);
}

function finish(ctx) {
  return finishBrowserRun(ctx, tmuxBin, ctx.stderr);
}

main();
