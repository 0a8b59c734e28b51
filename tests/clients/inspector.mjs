// inspector.mjs — the MCP Inspector CLI's tools/list.
import path from 'node:path';
import {
  bin, binDir, TOOLS, sameTools, check, note, clientEnv, sh, asJson, place
} from './common.mjs';

// The Inspector CLI's tools/list.
export async function inspector() {
  const { home, work } = place('inspector');
  const env = clientEnv(home, {});
  const r = await sh([path.join(binDir, 'mcp-inspector'), '--cli', '-e',
    'PROGMUX_ROBUST=1', bin, '--method', 'tools/list'], { env, cwd: work });
  const j = asJson(r.stdout);
  const names = j && Array.isArray(j.tools) ? j.tools.map((t) => t.name) : [];
  note(`mcp-inspector --cli tools/list: ${names.join(',')}`);
  check(`inspector: mcp-inspector --cli tools/list lists progmux's ${TOOLS.length} tools`,
    r.code === 0 && sameTools(names), r.stdout.slice(0, 300) + r.stderr);
}
