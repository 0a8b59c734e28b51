/*
 * json.c — JSON reader (jsmn plus our own checks) and writer (see json.h).
 *
 * json_parse() copies the input (the nodes' raw spans point into the copy)
 * and makes three passes over it, each linear in its size:
 *  1. json_tokenize: jsmn (strict mode) tokenizes it, in one pass that
 *     stops every JSON_TOK_STEP tokens to grow the token array and check
 *     the nesting depth (jsmn finds a closing bracket's opener by walking up
 *     the open containers, so unbounded nesting would make it quadratic)
 *     and whether data follows a complete value. When jsmn refuses the
 *     input, json_diagnose says what is wrong and where.
 *  2. json_walk checks what jsmn lets through: missing or doubled commas
 *     and colons, non-string keys, the number and literal grammar, raw
 *     control characters and invalid UTF-8 in strings, the exact depth. It
 *     counts each container's children, so that
 *  3. json_build can lay each container's children out contiguously in one
 *     node array: one allocation for nodes, one for the unescaped strings.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#include <jsmn.h>

#include "compat.h"
#include "json.h"
#include "xmalloc.h"

/* Inputs this long or longer are refused: jsmn counts in int. */
#define JSON_MAX_INPUT	((size_t)INT_MAX / 2)

/* Tokens jsmn may add between two checks of the depth. */
#define JSON_TOK_STEP	64

#define JSON_ONES	0x0101010101010101ULL
#define JSON_HIGHS	0x8080808080808080ULL

#define JSON_F_TRUE	0x1	/* a true boolean */
#define JSON_F_INT	0x2	/* an integer token that fits int64_t */
#define JSON_F_INTEGRAL	0x4	/* a finite number with no fractional part */

/* 32 bytes: a document of n tokens takes 32n here (plus 20n for jsmn's
 * tokens while parsing). */
struct json {
	uint8_t		 type;		/* enum json_type */
	uint8_t		 flags;
	uint32_t	 rawlen;	/* < JSON_MAX_INPUT */
	const char	*raw;
	union {
		struct {
			double		 d;
			int64_t		 i;
		} num;
		struct {
			const char	*s;
			size_t		 len;
		} str;
		struct {
			struct json	*kids;	/* objects: key, value... */
			size_t		 n;
		} c;
	} u;
};

struct json_doc {
	char		*text;	/* copy of the input, NUL-terminated */
	char		*strs;	/* unescaped strings, each NUL-terminated */
	struct json	*nodes;	/* nodes[0] is the root */
	size_t		 nnodes;
};

/* Where json_walk stands inside an open array or object. */
enum json_wstate {
	JSON_W_EMPTY,		/* just after the opening bracket */
	JSON_W_VALUE,		/* after a value */
	JSON_W_KEY		/* after an object key */
};

struct json_frame {
	int		 tok;
	enum json_wstate state;
};

/* Byte classes for the string escaper: 0 copies as is. */
static const unsigned char json_esc_class[256] = {
	[0x00 ... 0x1f] = 1,
	['"'] = 1,
	['\\'] = 1,
	[0x80 ... 0xff] = 2
};

/* The "C" locale, so that strtod and printf use a '.' whatever the caller
 * set with setlocale. */
static locale_t
json_c_locale(void)
{
	static locale_t	 c;

	if (c == (locale_t)0)
		c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return (c);
}

/* Switch this thread to the "C" locale; returns the one to restore. */
static locale_t
json_locale_enter(void)
{
	locale_t	 c;

	if ((c = json_c_locale()) == (locale_t)0)
		return ((locale_t)0);
	return (uselocale(c));
}

/* Undo json_locale_enter. */
static void
json_locale_leave(locale_t old)
{
	if (old != (locale_t)0)
		uselocale(old);
}

/* Is c JSON whitespace? */
static int
json_is_ws(int c)
{
	return (c == ' ' || c == '\t' || c == '\n' || c == '\r');
}

/* Value of four hex digits at s, or -1. */
static long
json_hex4(const char *s)
{
	long	v = 0;
	int	i, c;

	for (i = 0; i < 4; i++) {
		c = (unsigned char)s[i];
		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + (c - 'A' + 10);
		else
			return (-1);
	}
	return (v);
}

/* Set *cause to "what at byte N". */
static void
json_fail(char **cause, size_t at, const char *what)
{
	if (cause != NULL)
		xasprintf(cause, "%s at byte %zu", what, at);
}

/* Set *cause for an unexpected byte c at offset at. */
static void
json_fail_char(char **cause, size_t at, int c, const char *expected)
{
	char	what[96];

	if (c > 0x20 && c < 0x7f)
		snprintf(what, sizeof what, "unexpected '%c'%s%s", c,
		    expected != NULL ? ", expected " : "",
		    expected != NULL ? expected : "");
	else
		snprintf(what, sizeof what, "unexpected byte 0x%02x%s%s", c,
		    expected != NULL ? ", expected " : "",
		    expected != NULL ? expected : "");
	json_fail(cause, at, what);
}

/*
 * Say why jsmn refused the string whose opening quote is at t[i]: a raw
 * control character (NUL stops jsmn), a bad escape, or no closing quote.
 * Runs only once jsmn has failed, to name the fault.
 */
static void
json_diag_string(const char *t, size_t len, size_t i, char **cause)
{
	const unsigned char	*p = (const unsigned char *)t;
	size_t			 j;
	char			 what[64];

	for (j = i + 1; j < len && p[j] != '"'; j++) {
		if (p[j] < 0x20) {
			snprintf(what, sizeof what,
			    "control character U+%04X in string", p[j]);
			json_fail(cause, j, what);
			return;
		}
		if (p[j] != '\\')
			continue;
		if (++j >= len)
			break;
		if (p[j] != '\0' && strchr("\"\\/bfnrt", p[j]) != NULL)
			continue;
		if (p[j] == 'u') {
			if (len - j < 5)
				break;
			if (json_hex4(t + j + 1) < 0) {
				json_fail(cause, j - 1, "invalid \\u escape "
				    "(four hex digits needed) in string");
				return;
			}
			j += 4;
			continue;
		}
		if (p[j] > 0x20 && p[j] < 0x7f)
			snprintf(what, sizeof what,
			    "invalid escape \\%c in string", p[j]);
		else
			snprintf(what, sizeof what,
			    "invalid escape \\ and byte 0x%02x in string", p[j]);
		json_fail(cause, j - 1, what);
		return;
	}
	if (j < len)
		json_fail(cause, i, "malformed string");
	else
		json_fail(cause, i, "unterminated string starting");
}

/*
 * Check the contents t[s..e) of a string jsmn took (its escapes are
 * valid): no raw control character, valid UTF-8. Printable ASCII goes
 * eight bytes at a time.
 */
static int
json_check_string(const char *t, size_t s, size_t e, char **cause)
{
	const unsigned char	*p = (const unsigned char *)t;
	size_t			 i = s, used;
	uint64_t		 w;
	uint32_t		 cp;
	char			 what[64];

	while (i < e) {
		if (e - i >= 8) {
			memcpy(&w, p + i, 8);
			/* A byte below 0x20, or at or above 0x80, sets its
			 * high bit. */
			if ((((w - JSON_ONES * 0x20) | w) & JSON_HIGHS) == 0) {
				i += 8;
				continue;
			}
		}
		if (p[i] >= 0x20 && p[i] < 0x80) {
			i++;
			continue;
		}
		if (p[i] < 0x20) {
			snprintf(what, sizeof what,
			    "control character U+%04X in string", p[i]);
			json_fail(cause, i, what);
			return (-1);
		}
		used = utf8_decode(t + i, e - i, &cp);
		if (cp == UTF8_INVALID) {
			json_fail(cause, i, "invalid UTF-8");
			return (-1);
		}
		i += used;
	}
	return (0);
}

/* Is s (n bytes) a number as RFC 8259 writes them? */
static bool
json_number_ok(const char *s, size_t n)
{
	size_t	i = 0;

#define JSON_DIGIT(k) ((k) < n && s[k] >= '0' && s[k] <= '9')
	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (i < n && s[i] >= '1' && s[i] <= '9') {
		while (JSON_DIGIT(i))
			i++;
	} else
		return (false);
	if (i < n && s[i] == '.') {
		i++;
		if (!JSON_DIGIT(i))
			return (false);
		while (JSON_DIGIT(i))
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!JSON_DIGIT(i))
			return (false);
		while (JSON_DIGIT(i))
			i++;
	}
#undef JSON_DIGIT
	return (i == n);
}

/* Check a primitive token: a literal or a number. */
static int
json_check_primitive(const char *s, size_t n, size_t at, char **cause)
{
	if (s[0] == 't' || s[0] == 'f' || s[0] == 'n') {
		if ((n == 4 && memcmp(s, "true", 4) == 0) ||
		    (n == 5 && memcmp(s, "false", 5) == 0) ||
		    (n == 4 && memcmp(s, "null", 4) == 0))
			return (0);
		json_fail(cause, at, "invalid literal (true, false or null "
		    "expected)");
		return (-1);
	}
	if (!json_number_ok(s, n)) {
		json_fail(cause, at, "invalid number");
		return (-1);
	}
	return (0);
}

/* Start and end of a token in the text (a string's with its quotes). */
static size_t
json_tok_start(const jsmntok_t *t)
{
	return (t->type == JSMN_STRING ? (size_t)t->start - 1 :
	    (size_t)t->start);
}

/* End of a token in the text (just past its last byte). */
static size_t
json_tok_end(const jsmntok_t *t)
{
	return (t->type == JSMN_STRING ? (size_t)t->end + 1 : (size_t)t->end);
}

/* Offset of the first non-whitespace byte at or after i (up to end). */
static size_t
json_skip_ws(const char *t, size_t i, size_t end)
{
	while (i < end && json_is_ws((unsigned char)t[i]))
		i++;
	return (i);
}

/* The last byte before t[i] that is not whitespace, or -1. */
static int
json_prev_byte(const char *t, size_t i)
{
	while (i > 0 && json_is_ws((unsigned char)t[i - 1]))
		i--;
	return (i > 0 ? (unsigned char)t[i - 1] : -1);
}

/*
 * Say why jsmn stopped at t[at] (r its error; 0 if it stopped early at a
 * NUL byte); the first ntok tokens are what it made before.
 */
static void
json_diagnose(const char *t, size_t len, size_t at, int r,
    const jsmntok_t *tk, unsigned int ntok, char **cause)
{
	const unsigned char	*p = (const unsigned char *)t;
	size_t			 j, end;
	uint32_t		 cp;
	int			 prev;

	if (ntok > 0 && tk[0].end != -1 && at >= (end = json_tok_end(&tk[0]))) {
		json_fail(cause, json_skip_ws(t, end, len),
		    "unexpected data after the value");
		return;
	}
	if (at >= len) {
		json_fail(cause, len, "unexpected end of input");
		return;
	}
	switch (p[at]) {
	case '"':
		json_diag_string(t, len, at, cause);
		return;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
	case 't': case 'f': case 'n':
		/* A primitive runs up to a delimiter, in printable ASCII. */
		for (j = at; j < len && !json_is_ws(p[j]) && p[j] != ',' &&
		    p[j] != ']' && p[j] != '}'; j++) {
			if (p[j] < 0x20 || p[j] >= 0x7f) {
				at = j;
				goto bad_byte;
			}
		}
		/* FALLTHROUGH */
	case '{': case '[':
		/* jsmn refuses a value where an object wants a key. */
		prev = json_prev_byte(t, at);
		if (r == JSMN_ERROR_INVAL && (prev == '{' || prev == ',')) {
			json_fail(cause, at, "object key is not a string");
			return;
		}
		break;
	}
bad_byte:
	if (p[at] >= 0x80 && (utf8_decode(t + at, len - at, &cp), 1) &&
	    cp == UTF8_INVALID)
		json_fail(cause, at, "invalid UTF-8");
	else
		json_fail_char(cause, at, p[at], NULL);
}

/*
 * Depth of the containers open where jsmn stands, counted up its parent
 * links from sup (containers and the keys inside objects). When it is past
 * JSON_MAX_DEPTH, *at is where the first container too deep starts.
 */
static int
json_depth(const jsmntok_t *tk, int sup, size_t *at)
{
	int	i, d = 0, k;

	for (i = sup; i != -1; i = tk[i].parent)
		d += (tk[i].type == JSMN_OBJECT || tk[i].type == JSMN_ARRAY);
	k = d;
	for (i = sup; d > JSON_MAX_DEPTH && i != -1; i = tk[i].parent) {
		if (tk[i].type != JSMN_OBJECT && tk[i].type != JSMN_ARRAY)
			continue;
		if (k-- == JSON_MAX_DEPTH + 1)
			*at = (size_t)tk[i].start;
	}
	return (d);
}

/* "nesting deeper than N levels at byte at". */
static void
json_fail_depth(char **cause, size_t at)
{
	char	what[64];

	snprintf(what, sizeof what, JSON_DEEP_CAUSE " %d levels",
	    JSON_MAX_DEPTH);
	json_fail(cause, at, what);
}

/*
 * Tokenize t (len bytes, then a space and a NUL) with jsmn in one pass,
 * letting it add at most JSON_TOK_STEP tokens between checks. Returns the
 * tokens (*ntok of them), or NULL with *cause set.
 */
static jsmntok_t *
json_tokenize(const char *t, size_t len, int *ntok, char **cause)
{
	jsmn_parser	 p;
	jsmntok_t	*tk = NULL;
	size_t		 cap = 0, at = 0, i;
	unsigned int	 lim;
	int		 r;

	jsmn_init(&p);
	for (;;) {
		lim = p.toknext + JSON_TOK_STEP;
		if (lim > cap) {
			cap = cap == 0 ? JSON_TOK_STEP : cap * 2;
			tk = xreallocarray(tk, cap, sizeof *tk);
		}
		/* The space after the text ends a top-level primitive: strict
		 * jsmn wants a delimiter after each. */
		r = jsmn_parse(&p, t, len + 1, tk, lim);
		if (r != JSMN_ERROR_NOMEM)
			break;
		if (json_depth(tk, p.toksuper, &at) > JSON_MAX_DEPTH) {
			json_fail_depth(cause, at);
			goto fail;
		}
		if (tk[0].end != -1 && json_tok_start(&tk[p.toknext - 1]) >=
		    json_tok_end(&tk[0])) {
			json_fail(cause, json_skip_ws(t, json_tok_end(&tk[0]),
			    len), "unexpected data after the value");
			goto fail;
		}
	}
	if (r < 0 || p.pos < len + 1) {
		json_diagnose(t, len, p.pos, r, tk, p.toknext, cause);
		goto fail;
	}
	if (p.toknext == 0) {
		/* Nothing but whitespace, commas and colons. */
		i = json_skip_ws(t, 0, len);
		if (i < len)
			json_fail_char(cause, i, (unsigned char)t[i],
			    "a value");
		else if (cause != NULL)
			*cause = xstrdup(len == 0 ? "empty input" :
			    "no value, only whitespace");
		goto fail;
	}
	*ntok = (int)p.toknext;
	return (tk);

fail:
	free(tk);
	return (NULL);
}

/* Close the innermost open container, checking what precedes its bracket. */
static int
json_walk_close(const char *t, const jsmntok_t *tk, struct json_frame *f,
    size_t *pos, char **cause)
{
	const jsmntok_t	*c = &tk[f->tok];
	size_t		 end = (size_t)c->end, i, k;
	int		 obj = (c->type == JSMN_OBJECT);

	i = json_skip_ws(t, *pos, end);
	if (f->state == JSON_W_KEY) {
		json_fail_char(cause, i, (unsigned char)t[i], "':'");
		return (-1);
	}
	if (i != end - 1) {
		if (t[i] == ',') {
			k = json_skip_ws(t, i + 1, end);
			if (k == end - 1) {
				json_fail(cause, i, "trailing comma");
				return (-1);
			}
		}
		json_fail_char(cause, i, (unsigned char)t[i],
		    obj ? "',' or '}'" : "',' or ']'");
		return (-1);
	}
	if (t[i] != (obj ? '}' : ']')) {
		json_fail_char(cause, i, (unsigned char)t[i], NULL);
		return (-1);
	}
	*pos = end;
	return (0);
}

/*
 * Check the token stream against the JSON grammar, using positions only
 * (not jsmn's sizes or parent links, which are unreliable on bad input).
 * Leaves in each token's parent our parent and in a container's size its
 * number of child tokens (keys and values); adds to *strbytes the room the
 * unescaped strings need.
 */
static int
json_walk(const char *t, jsmntok_t *tk, int n, size_t root_end,
    size_t *strbytes, char **cause)
{
	struct json_frame	 fr[JSON_MAX_DEPTH + 1], *f;
	int			 sp = 0, i, obj;
	size_t			 pos = 0, s, e;

	*strbytes = 0;
	for (i = 0; i < n; i++) {
		s = json_tok_start(&tk[i]);
		e = json_tok_end(&tk[i]);
		while (sp > 0 && (size_t)tk[fr[sp - 1].tok].end <= s) {
			if (json_walk_close(t, tk, &fr[sp - 1], &pos,
			    cause) != 0)
				return (-1);
			sp--;
		}
		if (sp == 0 && i != 0) {
			json_fail(cause, json_skip_ws(t, pos, s),
			    "unexpected data after the value");
			return (-1);
		}
		pos = json_skip_ws(t, pos, s);
		if (sp == 0) {
			tk[i].parent = -1;
			if (pos != s) {
				json_fail_char(cause, pos,
				    (unsigned char)t[pos], "a value");
				return (-1);
			}
		} else {
			f = &fr[sp - 1];
			obj = (tk[f->tok].type == JSMN_OBJECT);
			if (f->state != JSON_W_EMPTY) {
				if (t[pos] != (f->state == JSON_W_KEY ?
				    ':' : ',')) {
					json_fail_char(cause, pos,
					    (unsigned char)t[pos],
					    f->state == JSON_W_KEY ? "':'" :
					    obj ? "',' or '}'" : "',' or ']'");
					return (-1);
				}
				pos = json_skip_ws(t, pos + 1, s);
			}
			if (pos != s) {
				json_fail_char(cause, pos,
				    (unsigned char)t[pos], "a value");
				return (-1);
			}
			if (obj && f->state != JSON_W_KEY &&
			    tk[i].type != JSMN_STRING) {
				json_fail(cause, s,
				    "object key is not a string");
				return (-1);
			}
			if (e > (size_t)tk[f->tok].end - 1) {
				json_fail(cause, s, "malformed value");
				return (-1);
			}
			tk[i].parent = f->tok;
			tk[f->tok].size++;
			if (obj && f->state != JSON_W_KEY)
				f->state = JSON_W_KEY;
			else
				f->state = JSON_W_VALUE;
		}
		switch (tk[i].type) {
		case JSMN_OBJECT:
		case JSMN_ARRAY:
			if (sp == JSON_MAX_DEPTH) {
				json_fail_depth(cause, s);
				return (-1);
			}
			if (tk[i].end < 0 || (size_t)tk[i].end <= s) {
				json_fail(cause, s, "malformed value");
				return (-1);
			}
			tk[i].size = 0;
			fr[sp].tok = i;
			fr[sp].state = JSON_W_EMPTY;
			sp++;
			pos = s + 1;
			break;
		case JSMN_STRING:
			if (json_check_string(t, (size_t)tk[i].start,
			    (size_t)tk[i].end, cause) != 0)
				return (-1);
			*strbytes += (size_t)(tk[i].end - tk[i].start) + 1;
			pos = e;
			break;
		case JSMN_PRIMITIVE:
			if (json_check_primitive(t + s, e - s, s, cause) != 0)
				return (-1);
			pos = e;
			break;
		default:
			json_fail(cause, s, "malformed value");
			return (-1);
		}
	}
	while (sp > 0) {
		if (json_walk_close(t, tk, &fr[sp - 1], &pos, cause) != 0)
			return (-1);
		sp--;
	}
	if ((pos = json_skip_ws(t, pos, root_end)) != root_end) {
		json_fail(cause, pos, "unexpected data after the value");
		return (-1);
	}
	return (0);
}

/*
 * Unescape the n bytes of a string's contents (already checked) into out,
 * which has room for n bytes; returns the length written. Surrogate pairs
 * are combined; a lone surrogate becomes U+FFFD.
 */
static size_t
json_unescape(const char *s, size_t n, char *out)
{
	const char	*bs;
	size_t		 i = 0, o = 0, run;
	long		 cp, lo;

	while (i < n) {
		if ((bs = memchr(s + i, '\\', n - i)) == NULL)
			run = n - i;
		else
			run = (size_t)(bs - (s + i));
		memcpy(out + o, s + i, run);
		o += run;
		i += run;
		if (i + 1 >= n)
			break;
		switch (s[i + 1]) {
		case 'b': out[o++] = '\b'; i += 2; continue;
		case 'f': out[o++] = '\f'; i += 2; continue;
		case 'n': out[o++] = '\n'; i += 2; continue;
		case 'r': out[o++] = '\r'; i += 2; continue;
		case 't': out[o++] = '\t'; i += 2; continue;
		case 'u': break;
		default: out[o++] = s[i + 1]; i += 2; continue;
		}
		if (n - i < 6 || (cp = json_hex4(s + i + 2)) < 0) {
			i = n;	/* cannot happen: jsmn checked */
			break;
		}
		i += 6;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (n - i >= 6 && s[i] == '\\' && s[i + 1] == 'u' &&
			    (lo = json_hex4(s + i + 2)) >= 0xdc00 &&
			    lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
				i += 6;
			} else
				cp = 0xfffd;
		} else if (cp >= 0xdc00 && cp <= 0xdfff)
			cp = 0xfffd;
		o += utf8_encode((uint32_t)cp, out + o);
	}
	return (o);
}

/*
 * Is the number written as s (valid grammar) an integer in value? Decided
 * exactly from the digits, not from the double: 1.0, 1e3 and 100e-2 are,
 * 1.5 and 1e-400 are not.
 */
static bool
json_number_integral(const char *s, size_t n)
{
	size_t		 i = 0, nfrac = 0, zeros = 0;
	long long	 exp = 0, scale;
	bool		 nonzero = false, eneg = false;

	if (s[i] == '-')
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (s[i] == '0')
			zeros++;
		else {
			zeros = 0;
			nonzero = true;
		}
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			nfrac++;
			if (s[i] == '0')
				zeros++;
			else {
				zeros = 0;
				nonzero = true;
			}
		}
	}
	if (!nonzero)
		return (true);	/* zero */
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (s[i] == '+' || s[i] == '-')
			eneg = (s[i++] == '-');
		for (; i < n; i++) {
			if (exp < (1LL << 40))
				exp = exp * 10 + (s[i] - '0');
		}
		if (eneg)
			exp = -exp;
	}
	/* digits * 10^(exp - nfrac), trailing zeros of digits moved over */
	scale = exp - (long long)nfrac + (long long)zeros;
	return (scale >= 0);
}

/* Fill a number node from its token. */
static void
json_build_number(struct json *j, const char *s, size_t n)
{
	char		*end;
	long long	 ll;

	j->type = JSON_NUMBER;
	j->u.num.d = strtod(s, &end);
	if (isfinite(j->u.num.d) && json_number_integral(s, n))
		j->flags |= JSON_F_INTEGRAL;
	if (memchr(s, '.', n) == NULL && memchr(s, 'e', n) == NULL &&
	    memchr(s, 'E', n) == NULL) {
		errno = 0;
		ll = strtoll(s, &end, 10);
		if (errno == 0 && end == s + n) {
			j->flags |= JSON_F_INT;
			j->u.num.i = ll;
			return;
		}
	}
	/* Not an int64 token: keep a truncated, clamped value. */
	if (!isfinite(j->u.num.d) || j->u.num.d >= 9223372036854775808.0)
		j->u.num.i = j->u.num.d < 0 ? INT64_MIN : INT64_MAX;
	else if (j->u.num.d < -9223372036854775808.0)
		j->u.num.i = INT64_MIN;
	else
		j->u.num.i = (int64_t)j->u.num.d;
}

/* Build the node tree from the checked tokens. */
static void
json_build(struct json_doc *d, jsmntok_t *tk, int n, size_t strbytes)
{
	struct json	*j;
	char		*out;
	const char	*t = d->text;
	size_t		 next = 1, s, e, kids;
	int		 i;

	d->nodes = xcalloc((size_t)n, sizeof *d->nodes);
	d->nnodes = (size_t)n;
	d->strs = xmalloc(strbytes == 0 ? 1 : strbytes);
	out = d->strs;
	for (i = 0; i < n; i++) {
		/* A parent's size now holds the slot of its next child. */
		if (i == 0)
			j = &d->nodes[0];
		else
			j = &d->nodes[tk[tk[i].parent].size++];
		s = json_tok_start(&tk[i]);
		e = json_tok_end(&tk[i]);
		j->raw = t + s;
		j->rawlen = (uint32_t)(e - s);
		switch (tk[i].type) {
		case JSMN_OBJECT:
		case JSMN_ARRAY:
			j->type = tk[i].type == JSMN_OBJECT ? JSON_OBJECT :
			    JSON_ARRAY;
			kids = (size_t)tk[i].size;
			j->u.c.kids = kids != 0 ? &d->nodes[next] : NULL;
			j->u.c.n = kids;
			tk[i].size = (int)next;
			next += kids;
			break;
		case JSMN_STRING:
			j->type = JSON_STRING;
			j->u.str.s = out;
			j->u.str.len = json_unescape(t + tk[i].start,
			    (size_t)(tk[i].end - tk[i].start), out);
			out[j->u.str.len] = '\0';
			out += j->u.str.len + 1;
			break;
		default:
			if (t[s] == 'n')
				j->type = JSON_NULL;
			else if (t[s] == 't') {
				j->type = JSON_BOOL;
				j->flags = JSON_F_TRUE;
			} else if (t[s] == 'f')
				j->type = JSON_BOOL;
			else
				json_build_number(j, t + s, e - s);
			break;
		}
	}
}

/* Parse one JSON text; see the passes described at the top of the file. */
struct json_doc *
json_parse(const char *text, size_t len, char **cause)
{
	struct json_doc	*d;
	jsmntok_t	*tk = NULL;
	size_t		 strbytes;
	int		 n;
	locale_t	 old;

	if (cause != NULL)
		*cause = NULL;
	if (len >= JSON_MAX_INPUT) {
		if (cause != NULL)
			xasprintf(cause, "input too large (%zu bytes)", len);
		return (NULL);
	}
	if (text == NULL)
		text = "";

	d = xcalloc(1, sizeof *d);
	d->text = xmalloc(len + 2);
	memcpy(d->text, text, len);
	d->text[len] = ' ';
	d->text[len + 1] = '\0';
	if ((tk = json_tokenize(d->text, len, &n, cause)) == NULL)
		goto fail;
	d->text[len] = '\0';
	if (json_walk(d->text, tk, n, len, &strbytes, cause) != 0)
		goto fail;
	old = json_locale_enter();
	json_build(d, tk, n, strbytes);
	json_locale_leave(old);
	free(tk);
	return (d);

fail:
	free(tk);
	json_doc_free(d);
	return (NULL);
}

/* Free a document and every node and string in it. */
void
json_doc_free(struct json_doc *d)
{
	if (d == NULL)
		return;
	free(d->nodes);
	free(d->strs);
	free(d->text);
	free(d);
}

/* The top-level value of a document. */
const struct json *
json_root(const struct json_doc *d)
{
	if (d == NULL || d->nnodes == 0)
		return (NULL);
	return (&d->nodes[0]);
}

/* A NULL node reads as null throughout the accessors. */
enum json_type
json_type(const struct json *j)
{
	return (j == NULL ? JSON_NULL : (enum json_type)j->type);
}

/* The JSON Schema name of a type, for messages. */
const char *
json_type_name(enum json_type t)
{
	switch (t) {
	case JSON_NULL:
		return ("null");
	case JSON_BOOL:
		return ("boolean");
	case JSON_NUMBER:
		return ("number");
	case JSON_STRING:
		return ("string");
	case JSON_ARRAY:
		return ("array");
	case JSON_OBJECT:
		return ("object");
	}
	return ("unknown");
}

/* The bytes of the input a node was parsed from. */
const char *
json_raw(const struct json *j, size_t *len)
{
	if (j == NULL) {
		if (len != NULL)
			*len = 4;
		return ("null");
	}
	if (len != NULL)
		*len = j->rawlen;
	return (j->raw);
}

/* A boolean's value; false for anything else. */
bool
json_bool(const struct json *j)
{
	return (j != NULL && j->type == JSON_BOOL && (j->flags & JSON_F_TRUE));
}

/* A string's unescaped bytes; NULL for anything else. */
const char *
json_str(const struct json *j, size_t *len)
{
	if (j == NULL || j->type != JSON_STRING) {
		if (len != NULL)
			*len = 0;
		return (NULL);
	}
	if (len != NULL)
		*len = j->u.str.len;
	return (j->u.str.s);
}

/* The double nearest the number (+-HUGE_VAL past the double range). */
double
json_num(const struct json *j)
{
	if (j == NULL || j->type != JSON_NUMBER)
		return (0);
	return (j->u.num.d);
}

/* Was the number written as an integer that fits int64_t? */
bool
json_is_int(const struct json *j)
{
	return (j != NULL && j->type == JSON_NUMBER &&
	    (j->flags & JSON_F_INT));
}

/* The int64_t value; for a number that is not json_is_int, the double
 * truncated toward zero and clamped to the int64_t range. */
int64_t
json_int(const struct json *j)
{
	if (j == NULL || j->type != JSON_NUMBER)
		return (0);
	return (j->u.num.i);
}

/* Is the number a finite integer in value? */
bool
json_is_integral(const struct json *j)
{
	return (j != NULL && j->type == JSON_NUMBER &&
	    (j->flags & JSON_F_INTEGRAL));
}

/* Items of an array, members of an object, 0 for the rest. */
size_t
json_len(const struct json *j)
{
	if (j == NULL)
		return (0);
	if (j->type == JSON_ARRAY)
		return (j->u.c.n);
	if (j->type == JSON_OBJECT)
		return (j->u.c.n / 2);
	return (0);
}

/* Item i of an array, or value of member i of an object. */
const struct json *
json_at(const struct json *j, size_t i)
{
	if (i >= json_len(j))
		return (NULL);
	if (j->type == JSON_OBJECT)
		return (&j->u.c.kids[2 * i + 1]);
	return (&j->u.c.kids[i]);
}

/* Key of member i of an object. */
const char *
json_key_at(const struct json *j, size_t i, size_t *len)
{
	if (j == NULL || j->type != JSON_OBJECT || i >= json_len(j)) {
		if (len != NULL)
			*len = 0;
		return (NULL);
	}
	return (json_str(&j->u.c.kids[2 * i], len));
}

/* An object's member by key (klen bytes); the last duplicate wins. */
const struct json *
json_getn(const struct json *j, const char *key, size_t klen)
{
	const struct json	*k;
	size_t			 i;

	if (j == NULL || j->type != JSON_OBJECT)
		return (NULL);
	for (i = json_len(j); i > 0; i--) {
		k = &j->u.c.kids[2 * (i - 1)];
		if (k->u.str.len == klen && memcmp(k->u.str.s, key, klen) == 0)
			return (&j->u.c.kids[2 * (i - 1) + 1]);
	}
	return (NULL);
}

/* An object's member by NUL-terminated key. */
const struct json *
json_get(const struct json *j, const char *key)
{
	return (json_getn(j, key, strlen(key)));
}

/* Compare two numbers; exact for two int64 tokens. */
int
json_num_cmp(const struct json *a, const struct json *b)
{
	long double	x, y;

	if (json_is_int(a) && json_is_int(b)) {
		if (a->u.num.i != b->u.num.i)
			return (a->u.num.i < b->u.num.i ? -1 : 1);
		return (0);
	}
	x = json_is_int(a) ? (long double)a->u.num.i : json_num(a);
	y = json_is_int(b) ? (long double)b->u.num.i : json_num(b);
	if (x != y)
		return (x < y ? -1 : 1);
	return (0);
}

/* Do two objects have the same members (last duplicate wins)? */
static bool
json_equal_obj(const struct json *a, const struct json *b)
{
	const struct json	*ka, *kb, *v;
	size_t			 i, n = a->u.c.n;

	/* The usual case: same keys in the same order. */
	if (n == b->u.c.n) {
		for (i = 0; i < n; i++) {
			if (!json_equal(&a->u.c.kids[i], &b->u.c.kids[i]))
				break;
		}
		if (i == n)
			return (true);
	}
	for (i = 0; i < json_len(a); i++) {
		ka = &a->u.c.kids[2 * i];
		v = json_getn(b, ka->u.str.s, ka->u.str.len);
		if (v == NULL || !json_equal(json_getn(a, ka->u.str.s,
		    ka->u.str.len), v))
			return (false);
	}
	for (i = 0; i < json_len(b); i++) {
		kb = &b->u.c.kids[2 * i];
		if (json_getn(a, kb->u.str.s, kb->u.str.len) == NULL)
			return (false);
	}
	return (true);
}

/* Deep equality: numbers by value, members in any order. */
bool
json_equal(const struct json *a, const struct json *b)
{
	size_t	i;

	if (a == NULL || b == NULL)
		return (a == b);
	if (a->type != b->type)
		return (false);
	switch (a->type) {
	case JSON_NULL:
		return (true);
	case JSON_BOOL:
		return (json_bool(a) == json_bool(b));
	case JSON_NUMBER:
		return (json_num_cmp(a, b) == 0);
	case JSON_STRING:
		return (a->u.str.len == b->u.str.len &&
		    memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0);
	case JSON_ARRAY:
		if (a->u.c.n != b->u.c.n)
			return (false);
		for (i = 0; i < a->u.c.n; i++) {
			if (!json_equal(&a->u.c.kids[i], &b->u.c.kids[i]))
				return (false);
		}
		return (true);
	case JSON_OBJECT:
		return (json_equal_obj(a, b));
	}
	return (false);
}

/* Write bytes as a JSON string, escaped, invalid UTF-8 as U+FFFD. */
void
json_put_string(struct buf *b, const char *str, size_t n)
{
	const unsigned char	*s = (const unsigned char *)str;
	size_t			 i = 0, start, used = 1;
	uint32_t		 cp = 0;
	static const char	 hex[] = "0123456789abcdef";
	char			 u[6] = { '\\', 'u', '0', '0', 0, 0 };

	buf_reserve(b, n + 2);
	buf_addc(b, '"');
	while (i < n) {
		/* Copy the longest run that needs no change in one go. */
		start = i;
		for (;;) {
			while (i < n && json_esc_class[s[i]] == 0)
				i++;
			if (i < n && s[i] >= 0x80 &&
			    (used = utf8_decode(str + i, n - i, &cp), 1) &&
			    cp != UTF8_INVALID && cp != 0x2028 &&
			    cp != 0x2029) {
				i += used;
				continue;
			}
			break;
		}
		if (i > start)
			buf_add(b, s + start, i - start);
		if (i >= n)
			break;
		switch (s[i]) {
		case '"':  buf_add(b, "\\\"", 2); i++; continue;
		case '\\': buf_add(b, "\\\\", 2); i++; continue;
		case '\n': buf_add(b, "\\n", 2); i++; continue;
		case '\r': buf_add(b, "\\r", 2); i++; continue;
		case '\t': buf_add(b, "\\t", 2); i++; continue;
		case '\b': buf_add(b, "\\b", 2); i++; continue;
		case '\f': buf_add(b, "\\f", 2); i++; continue;
		}
		if (s[i] < 0x20) {
			u[4] = hex[s[i] >> 4];
			u[5] = hex[s[i] & 0xf];
			buf_add(b, u, 6);
			i++;
		} else if (cp != UTF8_INVALID) {
			/* U+2028 or U+2029: escaped for JavaScript. */
			buf_adds(b, cp == 0x2028 ? "\\u2028" : "\\u2029");
			i += used;
		} else {
			buf_add(b, "\xef\xbf\xbd", 3);
			i += used;
		}
	}
	buf_addc(b, '"');
}

/* Start writing into b. */
void
jw_init(struct jw *w, struct buf *b)
{
	memset(w, 0, sizeof *w);
	w->b = b;
}

/* Write the comma a value or key needs here, if any. */
static void
jw_prefix(struct jw *w)
{
	char	last;

	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth <= 0)
		return;
	if (w->depth <= JSON_MAX_DEPTH) {
		if (w->need_comma[w->depth])
			buf_addc(w->b, ',');
		w->need_comma[w->depth] = true;
		return;
	}
	/* Deeper than the table: only we have written here, so look back. */
	last = w->b->len > 0 ? w->b->data[w->b->len - 1] : '[';
	if (last != '[' && last != '{' && last != ':')
		buf_addc(w->b, ',');
}

/* Open an object or array. */
static void
jw_open(struct jw *w, char c)
{
	jw_prefix(w);
	buf_addc(w->b, c);
	w->depth++;
	if (w->depth <= JSON_MAX_DEPTH)
		w->need_comma[w->depth] = false;
}

/* Close an object or array. */
static void
jw_close(struct jw *w, char c)
{
	if (w->depth > 0)
		w->depth--;
	w->after_key = false;
	buf_addc(w->b, c);
}

/* Open an object. */
void
jw_obj_begin(struct jw *w)
{
	jw_open(w, '{');
}

/* Close an object. */
void
jw_obj_end(struct jw *w)
{
	jw_close(w, '}');
}

/* Open an array. */
void
jw_arr_begin(struct jw *w)
{
	jw_open(w, '[');
}

/* Close an array. */
void
jw_arr_end(struct jw *w)
{
	jw_close(w, ']');
}

/* Write a member key of n bytes and its colon. */
void
jw_keyn(struct jw *w, const char *k, size_t n)
{
	jw_prefix(w);
	json_put_string(w->b, k, n);
	buf_addc(w->b, ':');
	w->after_key = true;
}

/* Write a NUL-terminated member key and its colon. */
void
jw_key(struct jw *w, const char *k)
{
	jw_keyn(w, k, strlen(k));
}

/* Write n bytes as a string value. */
void
jw_strn(struct jw *w, const char *s, size_t n)
{
	jw_prefix(w);
	json_put_string(w->b, s, n);
}

/* Write a NUL-terminated string value, or null for NULL. */
void
jw_str(struct jw *w, const char *s)
{
	if (s == NULL)
		jw_null(w);
	else
		jw_strn(w, s, strlen(s));
}

/* Write a signed integer. */
void
jw_int(struct jw *w, int64_t v)
{
	jw_prefix(w);
	buf_printf(w->b, "%lld", (long long)v);
}

/* Finite values in the fewest digits (15 to 17) that read back the same;
 * NaN and infinities, which JSON cannot hold, as null. */
void
jw_double(struct jw *w, double v)
{
	char		 s[64];
	int		 prec;
	locale_t	 old;

	if (!isfinite(v)) {
		jw_null(w);
		return;
	}
	old = json_locale_enter();
	for (prec = 15; prec < 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(s, sizeof s, "%.17g", v);
	json_locale_leave(old);
	jw_prefix(w);
	buf_adds(w->b, s);
}

/* Write true or false. */
void
jw_bool(struct jw *w, bool v)
{
	jw_prefix(w);
	buf_adds(w->b, v ? "true" : "false");
}

/* Write null. */
void
jw_null(struct jw *w)
{
	jw_prefix(w);
	buf_add(w->b, "null", 4);
}

/* Write text that is already one valid JSON value. */
void
jw_raw(struct jw *w, const char *s, size_t n)
{
	jw_prefix(w);
	buf_add(w->b, s, n);
}

/* Write a parsed value back out compactly (numbers as written). */
void
jw_value(struct jw *w, const struct json *j)
{
	size_t	i, klen;
	const char *k;

	switch (json_type(j)) {
	case JSON_NULL:
		jw_null(w);
		break;
	case JSON_BOOL:
		jw_bool(w, json_bool(j));
		break;
	case JSON_NUMBER:
		/* The token as written: exact, big integers included. */
		jw_raw(w, j->raw, j->rawlen);
		break;
	case JSON_STRING:
		jw_strn(w, j->u.str.s, j->u.str.len);
		break;
	case JSON_ARRAY:
		jw_arr_begin(w);
		for (i = 0; i < j->u.c.n; i++)
			jw_value(w, &j->u.c.kids[i]);
		jw_arr_end(w);
		break;
	case JSON_OBJECT:
		jw_obj_begin(w);
		for (i = 0; i < json_len(j); i++) {
			k = json_key_at(j, i, &klen);
			jw_keyn(w, k, klen);
			jw_value(w, json_at(j, i));
		}
		jw_obj_end(w);
		break;
	}
}
