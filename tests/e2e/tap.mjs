// tap.mjs — what the end-to-end tests (e2e.mjs, eras.mjs) share: their
// checks as TAP lines, the summary scripts/test/test.sh adds up, and the
// environment of the progmux they drive.

export const tally = { passed: 0, failed: 0, skipped: 0, n: 0 };

// Record one check as a TAP line.
export function check(name, ok, why) {
  tally.n++;
  if (ok) {
    tally.passed++;
    console.log(`ok ${tally.n} - ${name}`);
  } else {
    tally.failed++;
    console.log(`not ok ${tally.n} - ${name}${why ? ' # ' + String(why).slice(0, 500) : ''}`);
  }
  return ok;
}

// Record a check that did not run, and why: a TAP skip, counted apart
// (neither passed nor failed), listed as test.sh lists skips.
export function skip(name, why) {
  tally.n++;
  tally.skipped++;
  console.log(`ok ${tally.n} - ${name} # SKIP ${why}`);
  console.log(`skipped: ${name}: ${why}`);
}

// Run one named step; an exception fails it, and so does a value other
// than undefined or true that it returns (why it failed).
export async function step(name, fn) {
  try {
    const r = await fn();
    if (r === undefined || r === true) return check(name, true);
    return check(name, false, r);
  } catch (e) {
    return check(name, false, e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e);
  }
}

// The plan line, a cmocka-style summary for scripts/test/test.sh and
// "N passed, M failed"; the exit status says whether any check failed.
export function summary() {
  console.log(`1..${tally.n}`);
  console.log(`[  PASSED  ] ${tally.passed} test(s).`);
  if (tally.skipped > 0) console.log(`[  SKIPPED ] ${tally.skipped} test(s), listed above.`);
  if (tally.failed > 0) console.log(`[  FAILED  ] ${tally.failed} test(s), listed above.`);
  console.log(`${tally.passed} passed, ${tally.failed} failed${tally.skipped ? `, ${tally.skipped} skipped` : ''}`);
  process.exitCode = tally.failed > 0 ? 1 : 0;
}

// The environment a progmux under test gets: this process's, less
// anything naming another tmux server, plus the private server's socket
// (sock) and tmux binary, and TMPDIR and TMUX_TMPDIR in dir (its attach
// lock goes with the directory).
export function progmuxEnv(sock, dir, tmuxBin) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(TMUX|TMUX_PANE|PROGMUX_SOCKET_NAME|LIBTMUX_SOCKET_NAME|LIBTMUX_SOCKET_PATH)$/.test(k)) continue;
    if (v !== undefined) env[k] = v;
  }
  return { ...env, PROGMUX_SOCKET_PATH: sock, PROGMUX_TMUX_BIN: tmuxBin, TMPDIR: dir, TMUX_TMPDIR: dir };
}
