/*
 * jschema.c — validate a parsed JSON value against a JSON Schema (the
 * draft-07 subset described in jschema.h), and check that a schema uses
 * only that subset.
 *
 * The validator walks schema and instance together, keeping the instance
 * path ("argv[2]", "a.b") in a buffer, and stops at the first error. Its
 * messages name the path and the rule and show the offending value in
 * short compact JSON.
 *
 * "pattern" is ECMA-262; it is translated to a POSIX extended regex and
 * run by regcomp/regexec in the "C" locale, byte by byte. Instance strings
 * are valid UTF-8 (json_parse guarantees it), so the translation makes '.',
 * negated classes, \D, \W and \S match a whole multibyte character, and
 * wraps a multibyte literal in a group so a quantifier applies to all of
 * it: a pattern sees code points, as with ECMA's "u" flag. Not supported
 * (jschema_check refuses them; jschema_validate reports them as a schema
 * error): lookaround, backreferences, \b and \B, a NUL in the pattern,
 * non-ASCII ranges or non-ASCII members of negated classes. Approximations:
 * \s is ASCII whitespace plus the Unicode spaces, but \S, like '.', matches
 * any non-ASCII character. Strings holding NUL bytes are matched whole with
 * REG_STARTEND, so a NUL is an ordinary character. The pattern is compiled
 * on each use: nothing is cached.
 */
#include <sys/types.h>

#include <locale.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jschema.h"
#include "xmalloc.h"

/* Longest rendering of an offending value in a message. */
#define JSCHEMA_SHOW_MAX	48

/* Largest count in a {n,m} quantifier. */
#define JSCHEMA_RE_MAXREP	1000

/* Matches one non-ASCII character (the input is valid UTF-8). */
#define JSCHEMA_MB	"[\xc0-\xff][\x80-\xbf]*"

/* Unicode spaces that ECMA's \s adds to the ASCII ones, as UTF-8. */
static const char *const jschema_uspaces[] = {
	"\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\x80", "\xe2\x80\x81",
	"\xe2\x80\x82", "\xe2\x80\x83", "\xe2\x80\x84", "\xe2\x80\x85",
	"\xe2\x80\x86", "\xe2\x80\x87", "\xe2\x80\x88", "\xe2\x80\x89",
	"\xe2\x80\x8a", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf",
	"\xe2\x81\x9f", "\xe3\x80\x80", "\xef\xbb\xbf"
};
#define JSCHEMA_NUSPACES \
	(sizeof jschema_uspaces / sizeof jschema_uspaces[0])

/* Keywords that only annotate: both functions ignore them. */
static const char *const jschema_annotations[] = {
	"$schema", "$id", "$comment", "$anchor", "$defs", "definitions",
	"title", "description", "default", "examples", "readOnly",
	"writeOnly", "deprecated", "format", "contentMediaType",
	"contentEncoding", NULL
};

/* Keywords of JSON Schema that would change validation but are not
 * implemented: jschema_check refuses them. */
static const char *const jschema_unsupported[] = {
	"$ref", "$dynamicRef", "$recursiveRef", "$dynamicAnchor",
	"$recursiveAnchor", "$vocabulary", "patternProperties",
	"propertyNames", "dependencies", "dependentRequired",
	"dependentSchemas", "if", "then", "else", "contains", "minContains",
	"maxContains", "additionalItems", "prefixItems", "unevaluatedItems",
	"unevaluatedProperties", "multipleOf", NULL
};

/* One ECMA character class being translated. */
struct jschema_class {
	unsigned char	 ascii[128];	/* members 1..127 */
	unsigned long	 cps[64];	/* non-ASCII members */
	size_t		 ncps;
	int		 uspace;	/* \s: the Unicode spaces too */
	int		 neg;
};

/* Validation state. */
struct jschema_ctx {
	struct buf	 path;
	char		*cause;
};

static int	jschema_node(struct jschema_ctx *, const struct json *,
		    const struct json *);
static int	jschema_check_node(const struct json *, struct buf *, char **);

/* The "C" locale, so that regcomp works on bytes whatever setlocale did. */
static locale_t
jschema_c_locale(void)
{
	static locale_t	 c;

	if (c == (locale_t)0)
		c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return (c);
}

/* Is s one of the NULL-terminated list? */
static int
jschema_in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++) {
		if (strcmp(*list, s) == 0)
			return (1);
	}
	return (0);
}

/* Decode the UTF-8 character at p (valid, n > 0 bytes); returns its length. */
static size_t
jschema_utf8_decode(const unsigned char *p, size_t n, unsigned long *cp)
{
	size_t	len, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return (1);
	}
	if (p[0] >= 0xf0) {
		len = 4;
		*cp = p[0] & 0x07;
	} else if (p[0] >= 0xe0) {
		len = 3;
		*cp = p[0] & 0x0f;
	} else {
		len = 2;
		*cp = p[0] & 0x1f;
	}
	if (len > n)
		len = n;
	for (i = 1; i < len; i++)
		*cp = (*cp << 6) | (p[i] & 0x3f);
	return (len);
}

/* Append code point cp as UTF-8. */
static void
jschema_put_utf8(struct buf *b, unsigned long cp)
{
	if (cp < 0x80)
		buf_addc(b, (char)cp);
	else if (cp < 0x800) {
		buf_addc(b, (char)(0xc0 | (cp >> 6)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addc(b, (char)(0xe0 | (cp >> 12)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(b, (char)(0xf0 | (cp >> 18)));
		buf_addc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/* Value of n hex digits at p, or -1. */
static long
jschema_hex(const char *p, size_t n)
{
	long	v = 0;
	size_t	i;
	int	c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)p[i];
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

/*
 * Read the escape of a single character at p[*i] (just after the
 * backslash): \t \n \v \f \r \0-free \xHH \uHHHH (surrogate pairs joined)
 * \u{H...} \cX or an identity escape. Returns the code point, or -1.
 */
static long
jschema_re_escape_char(const char *p, size_t n, size_t *i, int inclass)
{
	long	cp, lo;
	size_t	j;
	int	c = (unsigned char)p[*i];

	(*i)++;
	switch (c) {
	case 't': return ('\t');
	case 'n': return ('\n');
	case 'v': return ('\v');
	case 'f': return ('\f');
	case 'r': return ('\r');
	case 'b':
		return (inclass ? '\b' : -1);
	case 'c':
		if (*i < n && ((p[*i] >= 'a' && p[*i] <= 'z') ||
		    (p[*i] >= 'A' && p[*i] <= 'Z')))
			return (p[(*i)++] % 32);
		return (-1);
	case 'x':
		if (n - *i < 2 || (cp = jschema_hex(p + *i, 2)) < 0)
			return (-1);
		*i += 2;
		return (cp);
	case 'u':
		if (*i < n && p[*i] == '{') {
			for (j = *i + 1; j < n && p[j] != '}'; j++)
				;
			if (j >= n || j - *i - 1 == 0 || j - *i - 1 > 6 ||
			    (cp = jschema_hex(p + *i + 1, j - *i - 1)) < 0 ||
			    cp > 0x10ffff)
				return (-1);
			*i = j + 1;
			return (cp);
		}
		if (n - *i < 4 || (cp = jschema_hex(p + *i, 4)) < 0)
			return (-1);
		*i += 4;
		if (cp >= 0xd800 && cp <= 0xdbff && n - *i >= 6 &&
		    p[*i] == '\\' && p[*i + 1] == 'u' &&
		    (lo = jschema_hex(p + *i + 2, 4)) >= 0xdc00 &&
		    lo <= 0xdfff) {
			*i += 6;
			return (0x10000 + ((cp - 0xd800) << 10) +
			    (lo - 0xdc00));
		}
		return (cp);
	}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c >= 0x80)
		return (-1);	/* \b \B \1 \k \p ... are not supported */
	return (c);		/* an identity escape: \. \/ \- ... */
}

/* Append a literal code point outside a class. */
static void
jschema_re_literal(struct buf *out, unsigned long cp)
{
	if (cp < 0x80) {
		if (strchr(".[\\()*+?{|^$", (int)cp) != NULL)
			buf_addc(out, '\\');
		buf_addc(out, (char)cp);
		return;
	}
	buf_addc(out, '(');
	jschema_put_utf8(out, cp);
	buf_addc(out, ')');
}

/* Add the members of \d, \w or \s to a class. */
static void
jschema_class_add_set(struct jschema_class *k, int c)
{
	int	i;

	for (i = 1; i < 128; i++) {
		if ((c == 'd' && i >= '0' && i <= '9') ||
		    (c == 'w' && ((i >= '0' && i <= '9') ||
		    (i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z') ||
		    i == '_')) ||
		    (c == 's' && (i == ' ' || (i >= '\t' && i <= '\r'))))
			k->ascii[i] = 1;
	}
	if (c == 's')
		k->uspace = 1;
}

/* Write the ASCII members of a class as a POSIX bracket body. */
static void
jschema_class_body(struct buf *out, const struct jschema_class *k)
{
	int	i;

	if (k->ascii[']'])
		buf_addc(out, ']');
	for (i = 1; i < 128; i++) {
		if (k->ascii[i] && i != ']' && i != '[' && i != '^' &&
		    i != '-')
			buf_addc(out, (char)i);
	}
	if (k->ascii['['])
		buf_addc(out, '[');
	if (k->ascii['^'])
		buf_addc(out, '^');
	if (k->ascii['-'])
		buf_addc(out, '-');
}

/* Emit a parsed class as a POSIX ERE. */
static int
jschema_class_emit(struct buf *out, struct jschema_class *k, char **err)
{
	size_t	i, nascii = 0;
	int	c;

	for (c = 1; c < 128; c++)
		nascii += k->ascii[c];
	if (k->neg) {
		if (k->ncps != 0 || k->uspace) {
			*err = xstrdup("non-ASCII members in a negated class "
			    "are not supported");
			return (-1);
		}
		buf_adds(out, "([^");
		jschema_class_body(out, k);
		buf_adds(out, "\x80-\xff]|" JSCHEMA_MB ")");
		return (0);
	}
	if (nascii == 0 && k->ncps == 0 && !k->uspace) {
		*err = xstrdup("an empty class [] is not supported");
		return (-1);
	}
	buf_addc(out, '(');
	if (nascii != 0) {
		/* "[^]" would negate: a lone '^' goes outside a bracket. */
		if (nascii == 1 && k->ascii['^'])
			buf_adds(out, "\\^");
		else {
			buf_addc(out, '[');
			jschema_class_body(out, k);
			buf_addc(out, ']');
		}
	}
	for (i = 0; i < k->ncps; i++) {
		if (nascii != 0 || i != 0)
			buf_addc(out, '|');
		jschema_put_utf8(out, k->cps[i]);
	}
	for (i = 0; k->uspace && i < JSCHEMA_NUSPACES; i++) {
		buf_addc(out, '|');
		buf_adds(out, jschema_uspaces[i]);
	}
	buf_addc(out, ')');
	return (0);
}

/* Read one class member at p[*i]: a code point, or -2 for a \d \w \s set
 * (added to k), or -1 for an error. */
static long
jschema_class_member(const char *p, size_t n, size_t *i,
    struct jschema_class *k)
{
	unsigned long	cp;
	int		c;

	if (p[*i] != '\\') {
		*i += jschema_utf8_decode((const unsigned char *)p + *i,
		    n - *i, &cp);
		return ((long)cp);
	}
	if (++(*i) >= n)
		return (-1);
	c = (unsigned char)p[*i];
	if (c == 'd' || c == 'w' || c == 's') {
		(*i)++;
		jschema_class_add_set(k, c);
		return (-2);
	}
	return (jschema_re_escape_char(p, n, i, 1));
}

/* Translate the class starting at p[*i] ('['). */
static int
jschema_re_class(const char *p, size_t n, size_t *i, struct buf *out,
    char **err)
{
	struct jschema_class	 k;
	long			 a, b;
	int			 c;

	memset(&k, 0, sizeof k);
	(*i)++;
	if (*i < n && p[*i] == '^') {
		k.neg = 1;
		(*i)++;
	}
	for (;;) {
		if (*i >= n) {
			*err = xstrdup("unterminated character class");
			return (-1);
		}
		if (p[*i] == ']')
			break;
		if ((a = jschema_class_member(p, n, i, &k)) == -1)
			goto bad;
		if (a >= 0 && *i + 1 < n && p[*i] == '-' && p[*i + 1] != ']') {
			(*i)++;
			if ((b = jschema_class_member(p, n, i, &k)) < 0)
				goto bad;
			if (b < a) {
				*err = xstrdup("range out of order in "
				    "character class");
				return (-1);
			}
			if (b >= 0x80 || a == 0) {
				*err = xstrdup("non-ASCII or NUL ranges are "
				    "not supported");
				return (-1);
			}
			for (c = (int)a; c <= b; c++)
				k.ascii[c] = 1;
			continue;
		}
		if (a == -2)
			continue;
		if (a == 0) {
			*err = xstrdup("NUL in a pattern is not supported");
			return (-1);
		}
		if (a < 0x80)
			k.ascii[a] = 1;
		else if (k.ncps < sizeof k.cps / sizeof k.cps[0])
			k.cps[k.ncps++] = (unsigned long)a;
		else {
			*err = xstrdup("too many non-ASCII class members");
			return (-1);
		}
	}
	(*i)++;
	return (jschema_class_emit(out, &k, err));

bad:
	*err = xstrdup("unsupported escape in character class "
	    "(\\D, \\W, \\S, \\p... or invalid)");
	return (-1);
}

/* Length of a {n}, {n,} or {n,m} quantifier at p[i], or 0 if none. */
static size_t
jschema_re_brace(const char *p, size_t n, size_t i)
{
	size_t	j = i + 1, d;

	for (d = 0; j < n && p[j] >= '0' && p[j] <= '9'; j++)
		d++;
	if (d == 0)
		return (0);
	if (j < n && p[j] == ',')
		for (j++; j < n && p[j] >= '0' && p[j] <= '9'; j++)
			;
	if (j < n && p[j] == '}')
		return (j + 1 - i);
	return (0);
}

/*
 * Translate an ECMA-262 pattern (n bytes, valid UTF-8) to a POSIX extended
 * regex in out. Returns -1 with *err set for what is not supported.
 */
static int
jschema_re_translate(const char *p, size_t n, struct buf *out, char **err)
{
	size_t		 i = 0, q;
	unsigned long	 cp, lo, hi;
	long		 e;
	int		 c, atom = 0, can;
	char		*end;

	while (i < n) {
		c = (unsigned char)p[i];
		/* Can a quantifier apply here? Only just after an atom: ECMA
		 * refuses "a**" or "(*a)", which glibc would blow up. */
		can = atom;
		atom = 1;
		switch (c) {
		case '\\':
			if (++i >= n) {
				*err = xstrdup("pattern ends with a backslash");
				return (-1);
			}
			c = (unsigned char)p[i];
			switch (c) {
			case 'd':
				buf_adds(out, "[0-9]");
				i++;
				continue;
			case 'D':
				buf_adds(out,
				    "([^0-9\x80-\xff]|" JSCHEMA_MB ")");
				i++;
				continue;
			case 'w':
				buf_adds(out, "[A-Za-z0-9_]");
				i++;
				continue;
			case 'W':
				buf_adds(out,
				    "([^A-Za-z0-9_\x80-\xff]|" JSCHEMA_MB ")");
				i++;
				continue;
			case 's':
				buf_adds(out, "([[:space:]]");
				for (q = 0; q < JSCHEMA_NUSPACES; q++) {
					buf_addc(out, '|');
					buf_adds(out, jschema_uspaces[q]);
				}
				buf_addc(out, ')');
				i++;
				continue;
			case 'S':
				buf_adds(out,
				    "([^[:space:]\x80-\xff]|" JSCHEMA_MB ")");
				i++;
				continue;
			}
			if ((e = jschema_re_escape_char(p, n, &i, 0)) <= 0) {
				xasprintf(err, "unsupported escape \\%c "
				    "(backreferences, \\b, \\B, \\0, \\p... "
				    "are not supported)", c);
				return (-1);
			}
			jschema_re_literal(out, (unsigned long)e);
			continue;
		case '[':
			if (jschema_re_class(p, n, &i, out, err) != 0)
				return (-1);
			continue;
		case '(':
			i++;
			if (i < n && p[i] == '?') {
				if (i + 1 < n && p[i + 1] == ':')
					i += 2;
				else if (i + 2 < n && p[i + 1] == '<' &&
				    p[i + 2] != '=' && p[i + 2] != '!') {
					/* A named group: keep the group. */
					while (i < n && p[i] != '>')
						i++;
					i++;
				} else {
					*err = xstrdup("lookahead and "
					    "lookbehind are not supported");
					return (-1);
				}
			}
			atom = 0;
			buf_addc(out, '(');
			continue;
		case '.':
			buf_adds(out, "([^\n\r\x80-\xff]|" JSCHEMA_MB ")");
			i++;
			continue;
		case '*': case '+': case '?':
			if (!can)
				goto norepeat;
			atom = 0;
			buf_addc(out, (char)c);
			i++;
			/* Lazy or greedy makes no difference to a yes/no. */
			if (i < n && p[i] == '?')
				i++;
			continue;
		case '{':
			if ((q = jschema_re_brace(p, n, i)) == 0) {
				buf_adds(out, "\\{");
				i++;
				continue;
			}
			if (!can)
				goto norepeat;
			atom = 0;
			lo = strtoul(p + i + 1, &end, 10);
			hi = *end == ',' ? (end[1] == '}' ? lo :
			    strtoul(end + 1, NULL, 10)) : lo;
			if (lo > JSCHEMA_RE_MAXREP || hi > JSCHEMA_RE_MAXREP) {
				xasprintf(err, "counted repeats over %d are not "
				    "supported", JSCHEMA_RE_MAXREP);
				return (-1);
			}
			if (hi < lo) {
				*err = xstrdup("repeat range out of order");
				return (-1);
			}
			buf_add(out, p + i, q);
			i += q;
			if (i < n && p[i] == '?')
				i++;
			continue;
		case '|': case '^': case '$':
			atom = 0;
			/* FALLTHROUGH */
		case ')':
			buf_addc(out, (char)c);
			i++;
			continue;
		case '\0':
			*err = xstrdup("NUL in a pattern is not supported");
			return (-1);
		}
		i += jschema_utf8_decode((const unsigned char *)p + i, n - i,
		    &cp);
		jschema_re_literal(out, cp);
	}
	return (0);

norepeat:
	xasprintf(err, "nothing to repeat at offset %zu", i);
	return (-1);
}

/*
 * Compile an ECMA pattern. Returns 0, or -1 with *err set.
 */
static int
jschema_re_compile(const char *pat, size_t plen, regex_t *re, char **err)
{
	struct buf	 b = BUF_INIT;
	char		 msg[128];
	locale_t	 c, old = (locale_t)0;
	int		 r;

	*err = NULL;
	if (!utf8_valid(pat, plen)) {
		*err = xstrdup("pattern is not valid UTF-8");
		return (-1);
	}
	if (jschema_re_translate(pat, plen, &b, err) != 0) {
		buf_free(&b);
		return (-1);
	}
	if ((c = jschema_c_locale()) != (locale_t)0)
		old = uselocale(c);
	r = regcomp(re, buf_cstr(&b), REG_EXTENDED | REG_NOSUB);
	if (old != (locale_t)0)
		uselocale(old);
	buf_free(&b);
	if (r != 0) {
		regerror(r, NULL, msg, sizeof msg);
		xasprintf(err, "invalid pattern: %s", msg);
		return (-1);
	}
	return (0);
}

/* Does s (n bytes, NULs allowed) match the compiled pattern anywhere? */
static int
jschema_re_match(regex_t *re, const char *s, size_t n)
{
	regmatch_t	 m[1];
	locale_t	 c, old = (locale_t)0;
	int		 r;

	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)n;
	if ((c = jschema_c_locale()) != (locale_t)0)
		old = uselocale(c);
	r = regexec(re, s, 1, m, REG_STARTEND);
	if (old != (locale_t)0)
		uselocale(old);
	return (r == 0);
}

/* Render a value briefly (compact JSON, cut at JSCHEMA_SHOW_MAX bytes). */
static void
jschema_show(struct buf *out, const struct json *v)
{
	struct buf	 b = BUF_INIT;
	struct jw	 w;
	const char	*str;
	size_t		 n;

	jw_init(&w, &b);
	if (json_type(v) == JSON_STRING && json_str(v, &n) != NULL &&
	    n > JSCHEMA_SHOW_MAX) {
		/* Escape only the start of a long string. */
		str = json_str(v, NULL);
		for (n = JSCHEMA_SHOW_MAX; n > 0 &&
		    ((unsigned char)str[n] & 0xc0) == 0x80; n--)
			;
		json_put_string(&b, str, n);
	} else
		jw_value(&w, v);
	n = b.len;
	if (n > JSCHEMA_SHOW_MAX) {
		n = JSCHEMA_SHOW_MAX - 3;
		while (n > 0 && (b.data[n] & 0xc0) == 0x80)
			n--;	/* not in the middle of a character */
		buf_add(out, b.data, n);
		buf_adds(out, "...");
	} else
		buf_add(out, b.data, n);
	buf_free(&b);
}

/* Record an error at the current path: "path: " then printf-style text,
 * then " (got V)" if v is not NULL. */
static int __attribute__((format(printf, 3, 4)))
jschema_fail(struct jschema_ctx *x, const struct json *v, const char *fmt, ...)
{
	struct buf	 b = BUF_INIT;
	va_list		 ap;
	char		*s;

	if (x->path.len == 0)
		buf_adds(&b, "(root)");
	else
		buf_add(&b, x->path.data, x->path.len);
	buf_adds(&b, ": ");
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s != NULL) {
		buf_adds(&b, s);
		free(s);
	}
	if (v != NULL) {
		buf_adds(&b, " (got ");
		jschema_show(&b, v);
		buf_addc(&b, ')');
	}
	free(x->cause);
	x->cause = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return (-1);
}

/* A JSON string as text for a message, quoted and escaped. */
static char *
jschema_quote(const char *s, size_t n)
{
	struct buf	 b = BUF_INIT;
	char		*r;

	json_put_string(&b, s, n);
	r = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return (r);
}

/* A number from the schema, as written. */
static char *
jschema_numtext(const struct json *n)
{
	size_t		 len;
	const char	*raw = json_raw(n, &len);

	return (xstrndup(raw, len));
}

/* Does v have the type named name? */
static int
jschema_type_is(const struct json *v, const char *name)
{
	enum json_type	t = json_type(v);

	if (strcmp(name, "integer") == 0)
		return (json_is_integral(v));
	if (strcmp(name, "number") == 0)
		return (t == JSON_NUMBER);
	return (strcmp(name, json_type_name(t)) == 0);
}

/* "a string", "an integer", "null" for messages. */
static const char *
jschema_type_article(const char *name)
{
	if (strcmp(name, "null") == 0)
		return ("");
	if (strcmp(name, "integer") == 0 || strcmp(name, "array") == 0 ||
	    strcmp(name, "object") == 0)
		return ("an ");
	return ("a ");
}

/* Check "type" (a name or a list of names). */
static int
jschema_check_type(struct jschema_ctx *x, const struct json *t,
    const struct json *v)
{
	struct buf	 b = BUF_INIT;
	const char	*name;
	size_t		 i, n;
	int		 wants_int = 0, r;

	if (json_type(t) == JSON_STRING) {
		if (jschema_type_is(v, json_str(t, NULL)))
			return (0);
		n = 1;
	} else if (json_type(t) == JSON_ARRAY) {
		for (i = 0; i < json_len(t); i++) {
			if (json_type(json_at(t, i)) == JSON_STRING &&
			    jschema_type_is(v, json_str(json_at(t, i), NULL)))
				return (0);
		}
		n = json_len(t);
	} else
		return (0);
	for (i = 0; i < n; i++) {
		name = json_str(n == 1 && json_type(t) == JSON_STRING ? t :
		    json_at(t, i), NULL);
		if (name == NULL)
			continue;
		if (strcmp(name, "integer") == 0)
			wants_int = 1;
		if (i > 0)
			buf_adds(&b, i + 1 == n ? " or " : ", ");
		buf_adds(&b, jschema_type_article(name));
		buf_adds(&b, name);
	}
	/* Show the number itself when it is only its fraction that fails. */
	if (wants_int && json_type(v) == JSON_NUMBER)
		r = jschema_fail(x, v, "must be %s", buf_cstr(&b));
	else
		r = jschema_fail(x, NULL, "must be %s (got %s)", buf_cstr(&b),
		    json_type_name(json_type(v)));
	buf_free(&b);
	return (r);
}

/* Check "enum". */
static int
jschema_check_enum(struct jschema_ctx *x, const struct json *e,
    const struct json *v)
{
	struct buf	 b = BUF_INIT;
	size_t		 i;
	int		 r;

	if (json_type(e) != JSON_ARRAY)
		return (0);
	for (i = 0; i < json_len(e); i++) {
		if (json_equal(json_at(e, i), v))
			return (0);
	}
	for (i = 0; i < json_len(e) && i < 10; i++) {
		if (i > 0)
			buf_adds(&b, ", ");
		jschema_show(&b, json_at(e, i));
	}
	if (json_len(e) > 10)
		buf_adds(&b, ", ...");
	r = jschema_fail(x, v, "must be one of %s", buf_cstr(&b));
	buf_free(&b);
	return (r);
}

/* Check the numeric keywords. */
static int
jschema_check_number(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	static const struct {
		const char	*kw;
		int		 bad;	/* the comparison result that fails */
		int		 bad2;
		const char	*text;
	} rules[] = {
		{ "minimum", -1, -1, "must be at least" },
		{ "maximum", 1, 1, "must be at most" },
		{ "exclusiveMinimum", -1, 0, "must be greater than" },
		{ "exclusiveMaximum", 1, 0, "must be less than" }
	};
	const struct json	*lim;
	char			*t;
	size_t			 i;
	int			 c;

	for (i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		lim = json_get(s, rules[i].kw);
		if (json_type(lim) != JSON_NUMBER)
			continue;
		c = json_num_cmp(v, lim);
		if (c == rules[i].bad || c == rules[i].bad2) {
			t = jschema_numtext(lim);
			jschema_fail(x, v, "%s %s", rules[i].text, t);
			free(t);
			return (-1);
		}
	}
	return (0);
}

/* A count limit from the schema ("minItems": 1), or -1 if absent. */
static double
jschema_limit(const struct json *s, const char *kw)
{
	const struct json	*l = json_get(s, kw);

	if (json_type(l) != JSON_NUMBER)
		return (-1);
	return (json_num(l));
}

/* Number of code points in a valid UTF-8 string. */
static size_t
jschema_cplen(const char *s, size_t n)
{
	size_t	i, c = 0;

	for (i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	}
	return (c);
}

/* Check the string keywords. */
static int
jschema_check_string(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	const struct json	*pat;
	const char		*str, *p;
	size_t			 n, cps, plen;
	double			 l;
	regex_t			 re;
	char			*err;
	int			 ok;

	str = json_str(v, &n);
	cps = jschema_cplen(str, n);
	if ((l = jschema_limit(s, "minLength")) >= 0 && cps < l)
		return (jschema_fail(x, v, "must be at least %.0f character%s "
		    "long", l, l == 1 ? "" : "s"));
	if ((l = jschema_limit(s, "maxLength")) >= 0 && cps > l)
		return (jschema_fail(x, NULL, "must be at most %.0f "
		    "character%s long (got %zu)", l, l == 1 ? "" : "s", cps));
	pat = json_get(s, "pattern");
	if (json_type(pat) == JSON_STRING) {
		p = json_str(pat, &plen);
		if (jschema_re_compile(p, plen, &re, &err) != 0) {
			jschema_fail(x, NULL, "schema pattern %s cannot be "
			    "used: %s", p, err);
			free(err);
			return (-1);
		}
		ok = jschema_re_match(&re, str, n);
		regfree(&re);
		if (!ok)
			return (jschema_fail(x, v, "must match %s", p));
	}
	return (0);
}

/* Extend the path with a member name; returns the old length. */
static size_t
jschema_path_key(struct jschema_ctx *x, const char *k, size_t n)
{
	size_t	old = x->path.len;

	if (old != 0)
		buf_addc(&x->path, '.');
	buf_add(&x->path, k, n);
	return (old);
}

/* Check the object keywords. */
static int
jschema_check_object(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	const struct json	*props, *req, *add, *sub;
	const char		*k;
	char			*q;
	size_t			 i, n, old;
	double			 l;

	req = json_get(s, "required");
	for (i = 0; i < json_len(req); i++) {
		k = json_str(json_at(req, i), &n);
		if (k != NULL && json_getn(v, k, n) == NULL) {
			q = jschema_quote(k, n);
			jschema_fail(x, NULL, "missing required field %s", q);
			free(q);
			return (-1);
		}
	}
	if ((l = jschema_limit(s, "minProperties")) >= 0 && json_len(v) < l)
		return (jschema_fail(x, NULL, "must have at least %.0f "
		    "field%s (got %zu)", l, l == 1 ? "" : "s", json_len(v)));
	if ((l = jschema_limit(s, "maxProperties")) >= 0 && json_len(v) > l)
		return (jschema_fail(x, NULL, "must have at most %.0f "
		    "field%s (got %zu)", l, l == 1 ? "" : "s", json_len(v)));
	props = json_get(s, "properties");
	add = json_get(s, "additionalProperties");
	for (i = 0; i < json_len(v); i++) {
		k = json_key_at(v, i, &n);
		if ((sub = json_getn(props, k, n)) == NULL) {
			if (add == NULL)
				continue;
			if (json_type(add) == JSON_BOOL && !json_bool(add)) {
				q = jschema_quote(k, n);
				jschema_fail(x, NULL, "unknown field %s", q);
				free(q);
				return (-1);
			}
			sub = add;
		}
		old = jschema_path_key(x, k, n);
		if (jschema_node(x, sub, json_at(v, i)) != 0)
			return (-1);
		x->path.len = old;
	}
	return (0);
}

/* Check the array keywords. */
static int
jschema_check_array(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	const struct json	*items;
	size_t			 i, j, n = json_len(v), old;
	double			 l;

	if ((l = jschema_limit(s, "minItems")) >= 0 && n < l)
		return (jschema_fail(x, NULL, "must have at least %.0f item%s "
		    "(got %zu)", l, l == 1 ? "" : "s", n));
	if ((l = jschema_limit(s, "maxItems")) >= 0 && n > l)
		return (jschema_fail(x, NULL, "must have at most %.0f item%s "
		    "(got %zu)", l, l == 1 ? "" : "s", n));
	if (json_bool(json_get(s, "uniqueItems"))) {
		for (i = 0; i < n; i++) {
			for (j = i + 1; j < n; j++) {
				if (json_equal(json_at(v, i), json_at(v, j)))
					return (jschema_fail(x, NULL,
					    "must not hold the same item twice "
					    "(items %zu and %zu are equal)",
					    i, j));
			}
		}
	}
	items = json_get(s, "items");
	if (items == NULL || json_type(items) == JSON_ARRAY)
		return (0);
	for (i = 0; i < n; i++) {
		old = x->path.len;
		buf_printf(&x->path, "[%zu]", i);
		if (jschema_node(x, items, json_at(v, i)) != 0)
			return (-1);
		x->path.len = old;
	}
	return (0);
}

/* Validate v against sub in a fresh context at the same path; returns 0 or
 * -1 with the message, its path prefix dropped when it is ours, in *msg. */
static int
jschema_try(struct jschema_ctx *x, const struct json *sub,
    const struct json *v, char **msg)
{
	struct jschema_ctx	 y;
	size_t			 plen;
	const char		*p;

	memset(&y, 0, sizeof y);
	buf_add(&y.path, x->path.data, x->path.len);
	if (jschema_node(&y, sub, v) == 0) {
		buf_free(&y.path);
		*msg = NULL;
		return (0);
	}
	p = x->path.len == 0 ? "(root)" : buf_cstr(&x->path);
	plen = strlen(p);
	if (strncmp(y.cause, p, plen) == 0 &&
	    strncmp(y.cause + plen, ": ", 2) == 0)
		*msg = xstrdup(y.cause + plen + 2);
	else
		*msg = xstrdup(y.cause);
	free(y.cause);
	buf_free(&y.path);
	return (-1);
}

/* Check anyOf, oneOf, allOf and not. */
static int
jschema_check_combinators(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	const struct json	*l;
	struct buf		 b = BUF_INIT;
	char			*m;
	size_t			 i, first = 0, nmatch;
	int			 r = 0, which;

	if (json_type(l = json_get(s, "allOf")) == JSON_ARRAY) {
		for (i = 0; i < json_len(l); i++) {
			if (jschema_node(x, json_at(l, i), v) != 0)
				return (-1);
		}
	}
	for (which = 0; which < 2; which++) {
		l = json_get(s, which == 0 ? "anyOf" : "oneOf");
		if (json_type(l) != JSON_ARRAY)
			continue;
		nmatch = 0;
		buf_reset(&b);
		for (i = 0; i < json_len(l); i++) {
			if (jschema_try(x, json_at(l, i), v, &m) == 0) {
				if (nmatch++ == 0)
					first = i;
				else if (which == 1) {
					r = jschema_fail(x, v, "must match "
					    "only one oneOf alternative but "
					    "matches %zu and %zu", first, i);
					goto out;
				}
				if (which == 0)
					break;
				continue;
			}
			if (b.len != 0)
				buf_adds(&b, "; or ");
			buf_adds(&b, m);
			free(m);
		}
		if (nmatch == 0) {
			r = jschema_fail(x, NULL, "must match one of the %s "
			    "alternatives: %s", which == 0 ? "anyOf" : "oneOf",
			    buf_cstr(&b));
			goto out;
		}
	}
	if ((l = json_get(s, "not")) != NULL) {
		if (jschema_try(x, l, v, &m) == 0) {
			r = jschema_fail(x, v, "must not match the schema in "
			    "\"not\"");
			goto out;
		}
		free(m);
	}
out:
	buf_free(&b);
	return (r);
}

/* Validate v against schema s at the current path. */
static int
jschema_node(struct jschema_ctx *x, const struct json *s,
    const struct json *v)
{
	const struct json	*c;

	if (json_type(s) == JSON_BOOL) {
		if (json_bool(s))
			return (0);
		return (jschema_fail(x, v, "no value is allowed here"));
	}
	if (json_type(s) != JSON_OBJECT)
		return (0);
	if ((c = json_get(s, "type")) != NULL &&
	    jschema_check_type(x, c, v) != 0)
		return (-1);
	if ((c = json_get(s, "const")) != NULL && !json_equal(c, v)) {
		struct buf	b = BUF_INIT;

		jschema_show(&b, c);
		jschema_fail(x, v, "must be %s", buf_cstr(&b));
		buf_free(&b);
		return (-1);
	}
	if ((c = json_get(s, "enum")) != NULL &&
	    jschema_check_enum(x, c, v) != 0)
		return (-1);
	switch (json_type(v)) {
	case JSON_NUMBER:
		if (jschema_check_number(x, s, v) != 0)
			return (-1);
		break;
	case JSON_STRING:
		if (jschema_check_string(x, s, v) != 0)
			return (-1);
		break;
	case JSON_OBJECT:
		if (jschema_check_object(x, s, v) != 0)
			return (-1);
		break;
	case JSON_ARRAY:
		if (jschema_check_array(x, s, v) != 0)
			return (-1);
		break;
	default:
		break;
	}
	return (jschema_check_combinators(x, s, v));
}

/* Validate instance against schema; the first error goes to *cause. */
int
jschema_validate(const struct json *schema, const struct json *instance,
    char **cause)
{
	struct jschema_ctx	 x;
	int			 r;

	memset(&x, 0, sizeof x);
	r = jschema_node(&x, schema, instance);
	buf_free(&x.path);
	if (r == 0) {
		free(x.cause);
		if (cause != NULL)
			*cause = NULL;
		return (0);
	}
	if (cause != NULL)
		*cause = x.cause;
	else
		free(x.cause);
	return (-1);
}

/* Set *cause to "where: what" for jschema_check. */
static int __attribute__((format(printf, 3, 4)))
jschema_check_fail(struct buf *where, char **cause, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (cause != NULL)
		xasprintf(cause, "%s: %s", where->len == 0 ? "#" :
		    buf_cstr(where), s == NULL ? "error" : s);
	free(s);
	return (-1);
}

/* Check a subschema at where + "/" + seg. */
static int
jschema_check_sub(const struct json *s, struct buf *where, const char *seg,
    size_t segn, char **cause)
{
	size_t	old = where->len;
	int	r;

	if (old == 0)
		buf_addc(where, '#');
	buf_addc(where, '/');
	buf_add(where, seg, segn);
	r = jschema_check_node(s, where, cause);
	where->len = old;
	return (r);
}

/* Is v a non-negative integer? */
static int
jschema_is_count(const struct json *v)
{
	return (json_is_integral(v) && json_num(v) >= 0);
}

/* Check one keyword of a schema object. */
static int
jschema_check_keyword(const char *k, const struct json *v, struct buf *where,
    char **cause)
{
	const struct json	*e;
	const char		*p;
	size_t			 i, j, n, plen;
	char			*err, idx[32];
	regex_t			 re;

	if (jschema_in_list(jschema_annotations, k))
		return (0);
	if (strcmp(k, "type") == 0) {
		n = json_type(v) == JSON_ARRAY ? json_len(v) : 1;
		if (json_type(v) == JSON_ARRAY && n == 0)
			goto bad;
		for (i = 0; i < n; i++) {
			e = json_type(v) == JSON_ARRAY ? json_at(v, i) : v;
			if (json_type(e) != JSON_STRING)
				goto bad;
			p = json_str(e, NULL);
			if (strcmp(p, "integer") != 0 &&
			    strcmp(p, "number") != 0 &&
			    strcmp(p, "string") != 0 &&
			    strcmp(p, "boolean") != 0 &&
			    strcmp(p, "null") != 0 &&
			    strcmp(p, "array") != 0 &&
			    strcmp(p, "object") != 0)
				return (jschema_check_fail(where, cause,
				    "unknown type \"%s\"", p));
		}
		return (0);
	}
	if (strcmp(k, "required") == 0) {
		if (json_type(v) != JSON_ARRAY)
			goto bad;
		for (i = 0; i < json_len(v); i++) {
			if (json_type(json_at(v, i)) != JSON_STRING)
				goto bad;
		}
		return (0);
	}
	if (strcmp(k, "additionalProperties") == 0 ||
	    strcmp(k, "not") == 0)
		return (jschema_check_sub(v, where, k, strlen(k), cause));
	if (strcmp(k, "items") == 0) {
		if (json_type(v) == JSON_ARRAY)
			return (jschema_check_fail(where, cause, "the list "
			    "form of \"items\" is not supported"));
		return (jschema_check_sub(v, where, k, strlen(k), cause));
	}
	if (strcmp(k, "minItems") == 0 || strcmp(k, "maxItems") == 0 ||
	    strcmp(k, "minLength") == 0 || strcmp(k, "maxLength") == 0 ||
	    strcmp(k, "minProperties") == 0 ||
	    strcmp(k, "maxProperties") == 0) {
		if (!jschema_is_count(v))
			return (jschema_check_fail(where, cause, "\"%s\" must "
			    "be a non-negative integer", k));
		return (0);
	}
	if (strcmp(k, "minimum") == 0 || strcmp(k, "maximum") == 0 ||
	    strcmp(k, "exclusiveMinimum") == 0 ||
	    strcmp(k, "exclusiveMaximum") == 0) {
		if (json_type(v) == JSON_NUMBER && isfinite(json_num(v)))
			return (0);
		if (json_type(v) == JSON_BOOL)
			return (jschema_check_fail(where, cause, "the draft-04 "
			    "boolean form of \"%s\" is not supported", k));
		goto bad;
	}
	if (strcmp(k, "uniqueItems") == 0) {
		if (json_type(v) != JSON_BOOL)
			goto bad;
		return (0);
	}
	if (strcmp(k, "enum") == 0) {
		if (json_type(v) != JSON_ARRAY || json_len(v) == 0)
			goto bad;
		return (0);
	}
	if (strcmp(k, "const") == 0)
		return (0);
	if (strcmp(k, "pattern") == 0) {
		if (json_type(v) != JSON_STRING)
			goto bad;
		p = json_str(v, &plen);
		if (jschema_re_compile(p, plen, &re, &err) != 0) {
			jschema_check_fail(where, cause, "pattern %s: %s", p,
			    err);
			free(err);
			return (-1);
		}
		regfree(&re);
		return (0);
	}
	if (strcmp(k, "anyOf") == 0 || strcmp(k, "oneOf") == 0 ||
	    strcmp(k, "allOf") == 0) {
		if (json_type(v) != JSON_ARRAY || json_len(v) == 0)
			goto bad;
		for (i = 0; i < json_len(v); i++) {
			j = (size_t)snprintf(idx, sizeof idx, "%s/%zu", k, i);
			if (jschema_check_sub(json_at(v, i), where, idx, j,
			    cause) != 0)
				return (-1);
		}
		return (0);
	}
	if (jschema_in_list(jschema_unsupported, k))
		return (jschema_check_fail(where, cause, "unsupported keyword "
		    "\"%s\" (it would change validation)", k));
	return (jschema_check_fail(where, cause, "unknown keyword \"%s\"", k));

bad:
	return (jschema_check_fail(where, cause, "invalid value for \"%s\"",
	    k));
}

/* Check one schema (an object or a boolean) at where. */
static int
jschema_check_node(const struct json *s, struct buf *where, char **cause)
{
	const struct json	*props;
	const char		*k;
	size_t			 i, n, old;

	if (json_type(s) == JSON_BOOL)
		return (0);
	if (json_type(s) != JSON_OBJECT)
		return (jschema_check_fail(where, cause, "a schema must be an "
		    "object or a boolean (got %s)",
		    json_type_name(json_type(s))));
	for (i = 0; i < json_len(s); i++) {
		k = json_key_at(s, i, &n);
		if (strlen(k) != n)
			return (jschema_check_fail(where, cause, "NUL in a "
			    "keyword"));
		if (strcmp(k, "properties") == 0) {
			props = json_at(s, i);
			if (json_type(props) != JSON_OBJECT)
				return (jschema_check_fail(where, cause,
				    "invalid value for \"properties\""));
			old = where->len;
			if (old == 0)
				buf_addc(where, '#');
			buf_adds(where, "/properties");
			for (n = 0; n < json_len(props); n++) {
				size_t	 kl;
				const char *pk = json_key_at(props, n, &kl);

				if (jschema_check_sub(json_at(props, n), where,
				    pk, kl, cause) != 0)
					return (-1);
			}
			where->len = old;
			continue;
		}
		if (jschema_check_keyword(k, json_at(s, i), where, cause) != 0)
			return (-1);
	}
	return (0);
}

/* Check that a schema uses only the keywords implemented here. */
int
jschema_check(const struct json *schema, char **cause)
{
	struct buf	 where = BUF_INIT;
	int		 r;

	if (cause != NULL)
		*cause = NULL;
	r = jschema_check_node(schema, &where, cause);
	buf_free(&where);
	return (r);
}
