/*
 * pattern.c — regular expressions through PCRE2, bounded (pattern.h).
 *
 * Each pattern has its compiled code, match data for one match at a
 * time and a match context carrying the limits, so matching allocates
 * nothing new once the first match has grown its frames. No JIT: the
 * interpreter alone honours every limit, and patterns are few and
 * short-lived (one per call).
 *
 * PCRE2's match limit counts the steps from one start position, and a
 * pattern such as \w+\d costs a few steps at each of them but scans the
 * rest of the line from each: quadratic in the line, seconds on a line
 * of 24,000 characters. So a long subject is matched a window of start
 * positions at a time (an offset limit), the window doubling while a
 * window takes under PATTERN_WINDOW_FAST_US, and the time it has taken is
 * checked after each: past PATTERN_TIME_MS it stops with the time limit.
 * Both are CPU time, not time on the clock: the work a match does, the
 * same on a machine busy with other things, so a pattern is over the
 * limit or not whatever the load. Reading the CPU clock is a system call
 * (about 1 us), as long as a short line's whole match; so a pattern whose
 * matches have been quick reads it only once a match has run
 * PATTERN_CPU_AFTER_US on the (vDSO) monotonic clock, counting from then
 * (its first window, at most PATTERN_WINDOW start positions, is not
 * counted: the limit errs for the pattern, never against it), and from
 * then on, once slow, reads it from the start of each match.
 * The threshold is well above one window's fixed cost: PCRE2 looks for
 * a possible first character from the window's start to the end of the
 * subject before it checks the offset limit (0.14 ms on a line of 200 KB
 * here, whatever the window), so at 0.2 ms a plain \d{3} on such a line
 * was kept to small windows and ran into the time limit (8 runs in 200
 * of test_pattern).
 *
 * A filter or until is matched against each line, one call each: on
 * short lines that call is most of the cost. So a pattern that cannot
 * tell a line alone from the same line among others (it looks at no
 * subject's edge: \A, \z, \Z, \G; no lookaround, which would see the
 * LF; no atomic group, possessive repeat, \R, \X or verb, which could
 * keep what a LF let them take; no subroutine call, \K or callout: a
 * conservative check of its source, pattern_line_local) is compiled a
 * second time with PCRE2_MULTILINE, ^ and $ then meaning a line's edges,
 * and run over many lines at once (pattern_find): every match a line has
 * alone is a match there too, at the same place, so the leftmost match
 * found starts on or before the first line that matches alone. Lines
 * before it are passed over without a call each; the line it starts on
 * is matched alone, as always, and decides.
 *
 * PCRE2 10.42 (Debian 12) has no limit on the compiled size itself
 * (pcre2_set_max_pattern_compiled_length came in 10.43); there its
 * 2-byte links cap a pattern at 64 KiB, and the size is checked after
 * compiling too, so both builds refuse the same patterns.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "pattern.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"

#define PATTERN_WINDOW		8	/* start positions in a first window */
#define PATTERN_WINDOW_FAST_US	1000	/* a window this quick: double it */
#define PATTERN_CPU_AFTER_US	200	/* then the CPU clock is read */

struct pattern {
	pcre2_code		*code;
	pcre2_code		*lines;		/* over many lines, or NULL */
	bool			 slow;		/* a match of it took long */
	pcre2_match_data	*md;
	pcre2_match_context	*mc;
};

/* What no line-local pattern's source holds (see above). */
static const char *const pattern_not_local[] = {
	"\\A", "\\z", "\\Z", "\\G", "\\K", "\\R", "\\X", "\\g<",
	"\\g'", "(*", "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?R", "(?&",
	"(?P>", "(?C", "(?+", "(?-", "++", "*+", "?+", "}+", NULL
};

/* PCRE2's message for error code e. */
static void
pattern_error(int e, char *buf, size_t size)
{
	if (pcre2_get_error_message(e, (PCRE2_UCHAR *)buf, size) < 0)
		snprintf(buf, size, "error %d", e);
}

/* What a compile error means for the client. */
static void
pattern_compile_cause(int e, size_t off, char **cause)
{
	char	why[256];

	switch (e) {
	case PCRE2_ERROR_PATTERN_STRING_TOO_LONG:
		xasprintf(cause, "is longer than %d bytes (the pattern length "
		    "limit)", PATTERN_MAX_LEN);
		return;
	case PCRE2_ERROR_PATTERN_TOO_LARGE:
#ifdef PCRE2_ERROR_PATTERN_COMPILED_SIZE_TOO_BIG
	case PCRE2_ERROR_PATTERN_COMPILED_SIZE_TOO_BIG:
#endif
		xasprintf(cause, "compiles to more than %d KiB (the compiled "
		    "size limit): write a shorter pattern or smaller repeat "
		    "counts", PATTERN_COMPILED_MAX / 1024);
		return;
	}
	pattern_error(e, why, sizeof why);
	xasprintf(cause, "is not a valid pattern: %s at offset %zu", why, off);
}

/* Does the source hold nothing that could tell a line among others from
 * a line alone? (False may be wrong; true is not: see above.) A "(?"
 * may only set options, group or name a group. */
static bool
pattern_line_local(const char *src, size_t len)
{
	const char	*p, *e = src + len;
	size_t		 i, n;
	char		 c2, c3;

	if (memchr(src, '\0', len) != NULL)
		return (false);
	for (i = 0; pattern_not_local[i] != NULL; i++) {
		n = strlen(pattern_not_local[i]);
		for (p = src; p + n <= e; p++)
			if (memcmp(p, pattern_not_local[i], n) == 0)
				return (false);
	}
	for (p = src; p + 2 < e; p++) {
		if (p[0] != '(' || p[1] != '?')
			continue;
		c2 = p[2];
		c3 = p + 3 < e ? p[3] : '\0';
		if (c2 != '\0' && strchr(":|imnsxJU^'", c2) != NULL)
			continue;	/* a group, options, a name */
		if (c2 == '<' && (c3 == '_' || isalpha((unsigned char)c3)))
			continue;	/* (?<name> */
		if (c2 == 'P' && (c3 == '<' || c3 == '='))
			continue;	/* (?P<name> (?P=name) */
		return (false);
	}
	return (true);
}

struct pattern *
pattern_compile(const char *src, size_t len, int flags, char **cause)
{
	struct pattern		*pat;
	pcre2_compile_context	*cc;
	pcre2_code		*code;
	uint32_t		 opts;
	size_t			 size = 0;
	PCRE2_SIZE		 off = 0;
	int			 e = 0;

	if (len > PATTERN_MAX_LEN) {
		pattern_compile_cause(PCRE2_ERROR_PATTERN_STRING_TOO_LONG, 0,
		    cause);
		return (NULL);
	}
	if ((cc = pcre2_compile_context_create(NULL)) == NULL)
		fatalx("%s: out of memory", __func__);
	pcre2_set_max_pattern_length(cc, PATTERN_MAX_LEN);
#ifdef pcre2_set_max_pattern_compiled_length
	pcre2_set_max_pattern_compiled_length(cc, PATTERN_COMPILED_MAX);
#endif
	opts = PCRE2_UTF | PCRE2_NEVER_BACKSLASH_C | PCRE2_USE_OFFSET_LIMIT;
	if (flags & PATTERN_LINES)
		opts |= PCRE2_MULTILINE;
	if (flags & PATTERN_ECMA) {
		opts |= PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX |
		    PCRE2_ALLOW_EMPTY_CLASS;
		pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
	}
	code = pcre2_compile((PCRE2_SPTR)src, len, opts, &e, &off, cc);
	pcre2_compile_context_free(cc);
	if (code == NULL) {
		pattern_compile_cause(e, off, cause);
		return (NULL);
	}
	if (pcre2_pattern_info(code, PCRE2_INFO_SIZE, &size) != 0 ||
	    size > PATTERN_COMPILED_MAX) {
		pcre2_code_free(code);
		pattern_compile_cause(PCRE2_ERROR_PATTERN_TOO_LARGE, 0, cause);
		return (NULL);
	}

	pat = xcalloc(1, sizeof *pat);
	pat->code = code;
	if (flags == 0 && pattern_line_local(src, len))
		pat->lines = pcre2_compile((PCRE2_SPTR)src, len, opts |
		    PCRE2_MULTILINE, &e, &off, NULL);
	pat->md = pcre2_match_data_create(1, NULL);
	pat->mc = pcre2_match_context_create(NULL);
	if (pat->md == NULL || pat->mc == NULL)
		fatalx("%s: out of memory", __func__);
	pcre2_set_match_limit(pat->mc, PATTERN_MATCH_LIMIT);
	pcre2_set_depth_limit(pat->mc, PATTERN_DEPTH_LIMIT);
	pcre2_set_heap_limit(pat->mc, PATTERN_HEAP_KIB);
	return (pat);
}

void
pattern_free(struct pattern *pat)
{
	if (pat == NULL)
		return;
	pcre2_match_data_free(pat->md);
	pcre2_match_context_free(pat->mc);
	pcre2_code_free(pat->code);
	pcre2_code_free(pat->lines);
	free(pat);
}

/* What stopped a match (rc, a PCRE2 error) means for the client. */
static int
pattern_match_cause(int rc, char **cause)
{
	char	why[256];

	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT:
		xasprintf(cause, "needs more than %d backtracking steps on one "
		    "line (the match limit): write it without nested or "
		    "overlapping repeats such as (a+)+ or (a|aa)*",
		    PATTERN_MATCH_LIMIT);
		break;
	case PCRE2_ERROR_DEPTHLIMIT:
		xasprintf(cause, "backtracks more than %d levels deep on one "
		    "line (the depth limit): match less at a time",
		    PATTERN_DEPTH_LIMIT);
		break;
	case PCRE2_ERROR_HEAPLIMIT:
	case PCRE2_ERROR_NOMEMORY:
		xasprintf(cause, "needs more than %d MiB to match one line "
		    "(the heap limit): match less at a time",
		    PATTERN_HEAP_KIB / 1024);
		break;
	default:
		pattern_error(rc, why, sizeof why);
		xasprintf(cause, "could not be matched: %s", why);
		break;
	}
	return (-1);
}

/*
 * Run code over subj, a window of start positions at a time, within the
 * limits: 1 (the match's start in *at), 0, or -1 with *cause.
 */
static int
pattern_run(struct pattern *pat, pcre2_code *code, PCRE2_SPTR subj,
    size_t len, size_t *at, char **cause)
{
	size_t		 from = 0, last, window = PATTERN_WINDOW;
	int64_t		 w0 = now_us(), t0 = pat->slow ? cpu_us() : -1, t1;
	int64_t		 spent;
	int		 rc;

	for (;;) {
		/* Start positions from..last, last on a character. */
		last = from + window;
		while (last < len && (subj[last] & 0xc0) == 0x80)
			last++;
		if (last >= len)
			last = len;
		pcre2_set_offset_limit(pat->mc, last);
		t1 = now_us();
		rc = pcre2_match(code, subj, len, from, PCRE2_NO_UTF_CHECK,
		    pat->md, pat->mc);
		if (rc >= 0) {
			*at = pcre2_get_ovector_pointer(pat->md)[0];
			return (1);
		}
		if (rc != PCRE2_ERROR_NOMATCH && rc != PCRE2_ERROR_PARTIAL)
			return (pattern_match_cause(rc, cause));
		if (last >= len)
			return (0);
		if (t0 == -1 && now_us() - w0 >= PATTERN_CPU_AFTER_US) {
			pat->slow = true;
			t0 = cpu_us();
		}
		spent = t0 == -1 ? 0 : cpu_us() - t0;
		if (spent >= PATTERN_TIME_MS * 1000) {
			xasprintf(cause, "takes more than %d ms on one line "
			    "(the time limit): write it so that it fails fast, "
			    "without a repeat that can match what follows it "
			    "(\\w+\\d)", PATTERN_TIME_MS);
			return (-1);
		}
		if (now_us() - t1 < PATTERN_WINDOW_FAST_US)
			window *= 2;
		from = last + 1;
		while (from < len && (subj[from] & 0xc0) == 0x80)
			from++;
		if (from > len)
			return (0);
	}
}

int
pattern_match(struct pattern *pat, const char *s, size_t len, char **cause)
{
	PCRE2_SPTR	 subj = (PCRE2_SPTR)(s != NULL ? s : "");
	size_t		 at;

	/* Checked once here, not by PCRE2 at each window: the text and
	 * JSON strings are valid UTF-8, so this is never the cost. */
	if (!utf8_valid((const char *)subj, len)) {
		xasprintf(cause, "cannot be matched against text that is not "
		    "UTF-8 (byte %zu)", utf8_find_invalid((const char *)subj,
		    len));
		return (-1);
	}
	return (pattern_run(pat, pat->code, subj, len, &at, cause));
}

bool
pattern_lines(const struct pattern *pat)
{
	return (pat->lines != NULL);
}

/* The first line of s that may match, through the lines' pattern. */
int
pattern_find(struct pattern *pat, const char *s, size_t len, size_t *at)
{
	const char	*lf;
	char		*cause = NULL;
	size_t		 m;
	int		 rc;

	if (pat->lines == NULL || !utf8_valid(s, len))
		return (-1);
	rc = pattern_run(pat, pat->lines, (PCRE2_SPTR)s, len, &m, &cause);
	free(cause);
	if (rc == -1)
		return (-1);
	if (rc == 0)
		*at = len;
	else if (m > 0 && (lf = compat_memrchr(s, '\n', m)) != NULL)
		*at = (size_t)(lf - s) + 1;
	else
		*at = 0;
	return (0);
}

