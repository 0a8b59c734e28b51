// startup.mjs BINARY ENTRY [RUNS] — how long `--version` takes started
// directly (BINARY) and through the npm package's entry point (ENTRY,
// node_modules/.bin/progmux, which execs BINARY): the launcher's whole
// cost, since what runs after its exec is the same. RUNS of each (default
// 40), interleaved; prints the medians and the difference. Figures only,
// never a verdict: the machine may be loaded.
import { spawnSync } from 'node:child_process';

const [bin, entry, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 40);
const times = { [bin]: [], [entry]: [] };

function once(cmd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, ['--version'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0)
    throw new Error(`${cmd} --version: exit ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
once(bin);
once(entry);
for (let i = 0; i < runs; i++)
  for (const c of [bin, entry])
    times[c].push(once(c));
const d = median(times[bin]);
const e = median(times[entry]);
console.log(`start-up (--version, median of ${runs}): binary ${d.toFixed(1)} ms, ` +
  `through the package's entry point ${e.toFixed(1)} ms, difference ${(e - d).toFixed(1)} ms`);
