/*
 * sc.h — reading a tool result's structuredContent in cmocka tests.
 *
 * Included by the integration tests after <cmocka.h> and "client.h". A
 * result without structuredContent fails the test, with the result's text.
 * sc_str and sc_int give NULL and -999 for a field that is missing or of
 * another type, so an assertion on them fails with the value seen.
 */
#ifndef PROGMUX_TEST_SC_H
#define PROGMUX_TEST_SC_H

static inline const struct json *
sc_get(const struct json_doc *d, const char *key)
{
	const struct json	*sc = pmx_sc(d);

	if (sc == NULL)
		fail_msg("no structuredContent: %s", pmx_text(d));
	return (json_get(sc, key));
}

static inline const char *
sc_str(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	return (v && json_type(v) == JSON_STRING ? json_str(v, NULL) : NULL);
}

static inline int64_t
sc_int(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	return (v && json_type(v) == JSON_NUMBER ? json_int(v) : -999);
}

/* A string field that must be there: the test fails without it. */
static inline const char *
sc_need_str(const struct json_doc *d, const char *key)
{
	const char	*s = sc_str(d, key);

	if (s == NULL)
		fail_msg("no string %s in the result: %s", key, pmx_text(d));
	return (s);
}

static inline bool
sc_bool(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	assert_non_null(v);
	return (json_bool(v));
}

static inline bool
sc_null(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	return (v != NULL && json_type(v) == JSON_NULL);
}

/* A tools/call on c that must succeed: a valid answer, not an error. */
static inline struct json_doc *
sc_call_ok(struct pmx *c, const char *tool, const char *args)
{
	struct json_doc	*d = pmx_call(c, tool, args, 40000);

	if (d == NULL)
		fail_msg("%s %.300s: no valid answer", tool, args);
	if (pmx_is_error(d))
		fail_msg("%s %.300s failed: %s", tool, args, pmx_text(d));
	return (d);
}

#endif
