/*
 * json.h — reading JSON (with jsmn) into a small tree, and writing it.
 *
 * Reading: json_parse() tokenizes with jsmn (strict mode), then checks what
 * jsmn lets through (number and literal grammar, string escapes, control
 * characters, trailing data) and builds an immutable tree in one arena that
 * json_doc_free() releases at once. Strings are unescaped completely:
 * every escape, \uXXXX with surrogate pairs; a lone surrogate becomes
 * U+FFFD. Strings may hold NUL bytes, so every string carries its length.
 * Every node also keeps its raw span of the input (for echoing request ids
 * exactly, big integers included).
 *
 * Writing: struct jw tracks commas and nesting so callers write values in
 * order; strings are escaped completely and invalid UTF-8 is replaced by
 * U+FFFD, so every line written is valid JSON in valid UTF-8.
 */
#ifndef PROGMUX_JSON_H
#define PROGMUX_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "utf8.h"

#define JSON_MAX_DEPTH	128	/* deeper input is refused, not recursed into */
#define JSON_DEEP_CAUSE	"nesting deeper than" /* how such a refusal begins */

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT
};

struct json;
struct json_doc;

/*
 * Parse len bytes of text as one JSON value (surrounding whitespace allowed).
 * On failure returns NULL and sets *cause to an allocated message saying
 * what is wrong and where ("unterminated string at byte 12").
 */
struct json_doc		*json_parse(const char *text, size_t len, char **cause);
void			 json_doc_free(struct json_doc *);
const struct json	*json_root(const struct json_doc *);

/* Accessors take NULL (an absent member) and then read as empty: json_type
 * gives JSON_NULL, json_get and json_at NULL, json_len 0, json_str NULL. */
enum json_type	 json_type(const struct json *);
const char	*json_type_name(enum json_type);	/* "null", "boolean", ... */

/* The node's raw text in the input, as written (for a string: with quotes). */
const char	*json_raw(const struct json *, size_t *len);

bool		 json_bool(const struct json *);
/* A string's unescaped bytes, NUL-terminated as well; len may be NULL. */
const char	*json_str(const struct json *, size_t *len);
/* Numbers: the value as a double, and whether it is an integer that fits
 * int64_t exactly (no fraction, no exponent making it non-integral). */
double		 json_num(const struct json *);
bool		 json_is_int(const struct json *);
int64_t		 json_int(const struct json *);
/* true if the number is integral in value (1.0, 1e3), whatever its size.
 * Decided exactly from the digits (1.0000000000000000001 is not integral
 * even though its double is 1.0), but a number beyond the double range
 * (1e400, read as HUGE_VAL) is not: it could not be compared or stored. */
bool		 json_is_integral(const struct json *);
/* Compare two numbers by value: -1, 0 or 1 (exact for two int64 tokens). */
int		 json_num_cmp(const struct json *, const struct json *);

/* Arrays and objects: count of items / members; item or member value i. */
size_t			 json_len(const struct json *);
const struct json	*json_at(const struct json *, size_t i);
/* Objects: key of member i (unescaped), and lookup by key (NULL if none;
 * with duplicate keys the last one wins, as in JavaScript). */
const char		*json_key_at(const struct json *, size_t i, size_t *len);
const struct json	*json_get(const struct json *, const char *key);
/* The same for a key of klen bytes, which may hold NUL bytes. */
const struct json	*json_getn(const struct json *, const char *key,
			    size_t klen);

/* Same value? (deep; numbers by value, object members in any order). */
bool		 json_equal(const struct json *, const struct json *);

/*
 * Writing. A jw writes into a buf; it inserts commas and colons itself.
 * Use: jw_init(&w, &b); jw_obj_begin(&w); jw_key(&w, "a"); jw_int(&w, 1);
 * jw_obj_end(&w);  Keys and values must alternate inside objects.
 */
struct jw {
	struct buf	*b;
	int		 depth;
	bool		 need_comma[JSON_MAX_DEPTH + 1];
	bool		 after_key;
};

void	jw_init(struct jw *, struct buf *);
void	jw_obj_begin(struct jw *);
void	jw_obj_end(struct jw *);
void	jw_arr_begin(struct jw *);
void	jw_arr_end(struct jw *);
void	jw_key(struct jw *, const char *);
void	jw_keyn(struct jw *, const char *, size_t);
void	jw_str(struct jw *, const char *);		/* NULL writes null */
void	jw_strn(struct jw *, const char *, size_t);	/* bytes may be any */
void	jw_int(struct jw *, int64_t);
void	jw_double(struct jw *, double);
void	jw_bool(struct jw *, bool);
void	jw_null(struct jw *);
/* Insert already-valid JSON text as one value (e.g. a raw request id). */
void	jw_raw(struct jw *, const char *, size_t);
/* Write a parsed value back out, compactly. */
void	jw_value(struct jw *, const struct json *);

/* Escape bytes as a JSON string (with quotes) into b; invalid UTF-8 and
 * lone surrogates encoded in UTF-8 become U+FFFD. */
void	json_put_string(struct buf *, const char *, size_t);

#endif
