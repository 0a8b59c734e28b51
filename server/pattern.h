/*
 * pattern.h — the front's one regular-expression engine (PCRE2), for
 * read_program's until and filter and the schemas' "pattern" keyword.
 *
 * The dialect is PCRE2's, the one models write (JavaScript, Python, PCRE
 * alike): \d, \s, \w, \b, (?i), lazy quantifiers, lookaround, Unicode
 * text (PCRE2_UTF); \C is refused. PATTERN_ECMA is JSON Schema's
 * ECMA-262 flavour on the same engine: $ matches at the very end only,
 * \uhhhh and \u{h...} are code points, [] matches nothing and [^] any
 * character.
 *
 * Every pattern is bounded: its length (PATTERN_MAX_LEN bytes), its
 * compiled size (PATTERN_COMPILED_MAX) and, for each subject matched,
 * the backtracking steps from each start position (PATTERN_MATCH_LIMIT),
 * their depth (PATTERN_DEPTH_LIMIT), the memory they take
 * (PATTERN_HEAP_KIB) and the time the whole subject takes
 * (PATTERN_TIME_MS). A pattern past a limit fails with a message naming
 * the limit, never runs on without bound.
 */
#ifndef PROGMUX_PATTERN_H
#define PROGMUX_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#define PATTERN_MAX_LEN		4096		/* bytes of pattern */
#define PATTERN_COMPILED_MAX	(64 * 1024)	/* bytes compiled */
#define PATTERN_MATCH_LIMIT	100000		/* steps per start position */
#define PATTERN_DEPTH_LIMIT	50000		/* backtracking depth */
#define PATTERN_HEAP_KIB	8192		/* its memory, KiB */
#define PATTERN_TIME_MS		50		/* time per subject */

#define PATTERN_ECMA		0x1	/* JSON Schema's pattern */
#define PATTERN_LINES		0x2	/* ^ and $ at each line of a text
					   (untilFileMatch) */

struct pattern;

/* Compile len bytes of pattern; NULL with an allocated *cause that says
 * what is wrong ("is not a valid pattern: ... at offset 3", or the limit
 * it is over) for the caller to name its field before. */
struct pattern	*pattern_compile(const char *, size_t len, int flags,
		     char **cause);
void		 pattern_free(struct pattern *);
/* Does it match somewhere in s (len bytes of UTF-8, NULs allowed)? 1 or
 * 0; -1 with an allocated *cause when a limit stopped the match (or s is
 * not UTF-8). */
int		 pattern_match(struct pattern *, const char *s, size_t len,
		     char **cause);
/*
 * Many lines at once: in s[0, len), whole lines separated by LF, the
 * start of the first line that may match (pattern_match on it alone), or
 * len when none can: no line before it matches. 0, or -1 when the
 * pattern cannot be read so (pattern_lines false) or a limit stopped the
 * search: then match line by line, which names the line.
 */
int		 pattern_find(struct pattern *, const char *s, size_t len,
		     size_t *at);
/* Can pattern_find stand for it? */
bool		 pattern_lines(const struct pattern *);

#endif
