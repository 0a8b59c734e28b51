// mcpb-manifest.mjs TARGET — the manifest.json of progmux's MCP Bundle for
// TARGET (linux-x64 or linux-arm64), on standard output.
//
// The bundle is of type "binary": bin/progmux (and progmux-reaper beside
// it), the static build of make npm. Its user configuration is the
// settings server.json gives the MCP Registry (each PROGMUX_* variable),
// every one with a default, so the host always has a value to put in
// mcp_config's env (an empty string is a setting's own default to
// progmux). The tools listed are those tools/list gives every client
// (not view_update, the view's own); the prompts are the server's
// (prompts_generated: they are offered as the tools they use are).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const target = process.argv[2];
if (!['linux-x64', 'linux-arm64'].includes(target)) {
  console.error('usage: mcpb-manifest.mjs linux-x64|linux-arm64');
  process.exit(2);
}
const version = readFileSync(path.join(root, 'VERSION'), 'utf8').trim();
const server = JSON.parse(readFileSync(path.join(root, 'server.json'), 'utf8'));

// A title for each setting the host shows; a setting without one fails,
// so the two lists cannot drift apart.
const TITLES = {
  PROGMUX_ROBUST: 'Robust mode',
  PROGMUX_SOCKET_NAME: 'tmux socket name',
  PROGMUX_SOCKET_PATH: 'tmux socket path',
  PROGMUX_TMUX_BIN: 'tmux binary',
  PROGMUX_SESSION: 'tmux session',
  PROGMUX_WAIT_MAX_MS: 'Longest wait (ms)',
  PROGMUX_SECRET_PAGE_MS: 'Secret page open (ms)',
  PROGMUX_OUTPUT_MAX_BYTES: 'Output kept per program (bytes)',
  PROGMUX_TOTAL_OUTPUT_MAX_BYTES: 'Output kept in all (bytes)',
  PROGMUX_KEEP_ENDED: 'Ended programs kept',
  PROGMUX_MAX_PROGRAMS: 'Programs at once',
  PROGMUX_LIFETIME_MAX_MS: 'Longest lifetime (ms)',
  PROGMUX_ORPHAN_GRACE_MS: 'Kept for adoption (ms)',
  PROGMUX_PANE_MAX_CELLS: 'Largest pane (cells)',
  PROGMUX_SAFETY: 'Safety tier',
  PROGMUX_TOOLS: 'Tools offered',
  PROGMUX_HOSTS: 'Other hosts',
};

const userConfig = {};
const env = {};
for (const v of server.packages[0].environmentVariables) {
  const title = TITLES[v.name];
  if (!title) {
    console.error(`mcpb-manifest.mjs: no title for ${v.name} (server.json): add it to TITLES`);
    process.exit(1);
  }
  const key = v.name.replace(/^PROGMUX_/, '').toLowerCase();
  const type = v.format === 'boolean' ? 'boolean' : v.format === 'number' ? 'number' : 'string';
  let dflt = v.default !== undefined ? v.default : '';
  if (type === 'boolean') dflt = dflt === 'true';
  else if (type === 'number') dflt = Number(dflt);
  const desc = v.choices ? `${v.description} (${v.choices.join(', ')})` : v.description;
  userConfig[key] = { type, title, description: desc, required: false, default: dflt };
  env[v.name] = `\${user_config.${key}}`;
}

const tools = [];
for (const f of readdirSync(path.join(root, 'schemas')).sort()) {
  const t = JSON.parse(readFileSync(path.join(root, 'schemas', f), 'utf8'));
  const vis = t._meta && t._meta.ui && t._meta.ui.visibility;
  if (Array.isArray(vis) && !vis.includes('model')) continue;
  tools.push({ name: t.name, description: t.title });
}

const manifest = {
  manifest_version: '0.3',
  name: 'progmux',
  display_name: 'progmux',
  version,
  description: server.description,
  long_description: 'progmux runs the programs an agent starts in tmux panes and returns what they print as clean ' +
    'text, waiting for new output without polling. In desktop mode every program is a pane of your own tmux ' +
    'server that you can attach to; in robust mode progmux runs a private tmux server and nothing it started ' +
    'outlives it. Needs tmux 3.2a or newer on the machine. This bundle holds the static build for ' +
    `${target === 'linux-x64' ? 'x86_64' : 'arm64'} Linux.`,
  author: { name: 'progmux' },
  repository: { type: 'git', url: 'https://github.com/progmux/progmux' },
  homepage: 'https://github.com/progmux/progmux',
  license: 'UNLICENSED',
  keywords: ['tmux', 'terminal', 'programs', 'processes'],
  server: {
    type: 'binary',
    entry_point: 'bin/progmux',
    mcp_config: { command: '${__dirname}/bin/progmux', args: [], env },
  },
  tools,
  tools_generated: false,
  prompts_generated: true,
  compatibility: { platforms: ['linux'] },
  user_config: userConfig,
};
process.stdout.write(JSON.stringify(manifest, null, 2) + '\n');
