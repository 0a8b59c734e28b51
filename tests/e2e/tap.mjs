// tap.mjs — the checks of the end-to-end tests (e2e.mjs, eras.mjs) as TAP
// lines, and the summary scripts/test.sh adds up.

export const tally = { passed: 0, failed: 0, n: 0 };

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

// The plan line, a cmocka-style summary for scripts/test.sh and
// "N passed, M failed"; the exit status says whether any check failed.
export function summary() {
  console.log(`1..${tally.n}`);
  console.log(`[  PASSED  ] ${tally.passed} test(s).`);
  if (tally.failed > 0) console.log(`[  FAILED  ] ${tally.failed} test(s), listed above.`);
  console.log(`${tally.passed} passed, ${tally.failed} failed`);
  process.exitCode = tally.failed > 0 ? 1 : 0;
}
