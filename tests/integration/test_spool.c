/*
 * test_spool.c — a program's whole output, however long: kept on disk in
 * its spool, read and searched whole, its middle dropped past the ceiling
 * or on a full file system, its spool gone with it.
 *
 * Each test drives build/progmux (or PROGMUX_BIN) over its stdio against
 * a private tmux server; every result is checked against its
 * outputSchema, outputGap included.
 */
#include <sys/types.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sched.h>
#include <sys/mount.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "needs.h"
#include "timeutil.h"
#include "xmalloc.h"

#define LONG_MS		60000	/* a timeout the tests must not reach */


/*
 * A test run of 300,000 lines: three failures, in its first, middle and
 * last thousand lines, then its summary: 10.8 MB, past the 8 MiB that
 * were all a program kept before (its last 22 % never seen).
 */
static const char run300k[] = "\"argv\":[\"nice\",\"awk\",\"BEGIN { for "
    "(i = 1; "
    "i <= 300000; i++) { if (i == 500 || i == 150000 || i == 299500) "
    "printf \\\"test_%06d FAIL expected 42 got 41\\\\n\\\", i; else "
    "printf \\\"test_%06d ok (%2d ms) in suite_%03d\\\\n\\\", i, "
    "i % 97, i % 1000 } print \\\"SUMMARY: 299997 passed, 3 failed\\\" "
    "}\"]";

/* read_program on c with args (JSON members), which must succeed. */
static struct json_doc *
rd_on(struct pmx *c, const char *id, const char *fmt, ...)
{
	struct json_doc	*d;
	char		 members[600], args[800];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(members, sizeof members, fmt, ap);
	va_end(ap);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",%s}", id,
	    members);
	d = sc_call_ok(c, "read_program", args);
	return (d);
}

/* The program's spool, in c's runtime directory (allocated). */
static char *
spool_path(struct pmx *c, const char *id)
{
	char	*dir = rundir_of(c), *path;

	xasprintf(&path, "%s/%s.text", dir, id);
	free(dir);
	return (path);
}

/* Is there a file or directory at path? */
static bool
exists(const char *path)
{
	struct stat	st;

	return (lstat(path, &st) == 0);
}

/*
 * Pins the first test: one filter call finds the three failures
 * of a 300,000-line run, in its first, middle and last thousand lines
 * (the last ones were past the old 8 MiB ceiling, never seen), with
 * their line numbers; one tail gives the summary; nothing was dropped.
 */
static void
test_300k_lines(void **state)
{
	struct json_doc	*d;
	char		 args[1200], *id;
	const char	*text;

	(void)state;
	snprintf(args, sizeof args, "{%s}", run300k);
	d = call_ok("start_program", args);
	id = xstrdup(sc_need_str(d, "programId"));
	json_doc_free(d);
	/* One tail: how it ended. */
	d = rd_on(&group, id, "\"tail\":1,\"timeoutMs\":%d", LONG_MS);
	assert_true(sc_bool(d, "ended"));
	assert_string_equal(sc_str(d, "text"),
	    "SUMMARY: 299997 passed, 3 failed\n");
	assert_false(sc_bool(d, "outputCut"));
	assert_null(json_get(pmx_sc(d), "outputGap"));
	json_doc_free(d);
	/* One filter: every failure, numbered. */
	d = rd_on(&group, id, "\"filter\":\"FAIL\",\"timeoutMs\":0");
	text = sc_str(d, "text");
	print_message("filter: %s", text);
	assert_int_equal(sc_int(d, "matchedLines"), 3);
	assert_int_equal(sc_int(d, "scannedLines"), 300001);
	assert_string_equal(text,
	    "500:test_000500 FAIL expected 42 got 41\n"
	    "150000:test_150000 FAIL expected 42 got 41\n"
	    "299500:test_299500 FAIL expected 42 got 41\n");
	assert_true(sc_bool(d, "ended"));
	assert_true(sc_bool(d, "outputComplete"));
	json_doc_free(d);
	/* until finds the summary past them, the lines before it skipped. */
	d = rd_on(&group, id, "\"until\":\"^SUMMARY\",\"maxLines\":1,"
	    "\"timeoutMs\":0");
	assert_true(sc_bool(d, "matched"));
	assert_int_equal(sc_int(d, "skippedLines"), 300000);
	json_doc_free(d);
	stop(id);
	free(id);
}

/* The number a line of seq holds, from the text at p. */
static long
num_at(const char *p)
{
	return (strtol(p, NULL, 10));
}

/*
 * Pins: with a ceiling of 1 MiB, `seq 1 1000000` (6.9 MB) keeps its head
 * and its end, no more than the ceiling; a read from the head's end goes
 * on after the gap and says, in outputGap and in its text, how many lines
 * and bytes were dropped and between which cursors, the counts those of
 * the lines that are missing; a filter over the whole text finds lines
 * of the head and of the end, numbered as they were; tail gives the end.
 */
static void
test_ceiling_head_and_end(void **state)
{
	const char		*env[] = { "PROGMUX_OUTPUT_MAX_BYTES=1048576",
				    NULL };
	const struct json	*gap;
	struct pmx		 c;
	struct json_doc		*d;
	struct buf		 kept = BUF_INIT;
	char			*id, *nl, msg[300];
	const char		*text, *reason;
	int64_t			 cursor = 0, from, to, gap_lines, at;
	long			 last = 0, next;

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	id = pmx_start_program(&c, "{\"argv\":[\"nice\",\"seq\",\"1\","
	    "\"1000000\"]}", NULL);
	assert_non_null(id);
	d = rd_on(&c, id, "\"tail\":1,\"timeoutMs\":%d", LONG_MS);
	print_message("tail: %s\n", pmx_text(d));
	assert_string_equal(sc_str(d, "text"), "1000000\n");
	assert_true(sc_bool(d, "outputCut"));
	assert_false(sc_bool(d, "outputComplete"));
	json_doc_free(d);
	/* Read the head page by page, up to the gap. */
	for (;;) {
		d = rd_on(&c, id, "\"cursor\":%lld,\"timeoutMs\":0",
		    (long long)cursor);
		text = sc_str(d, "text");
		if ((gap = json_get(pmx_sc(d), "outputGap")) != NULL)
			break;
		assert_true(strlen(text) > 0);
		if (cursor == 0)
			assert_int_equal(strncmp(text, "1\n2\n3\n", 6), 0);
		buf_adds(&kept, text);
		nl = strrchr(buf_cstr(&kept), '\n');
		*nl = '\0';
		last = num_at((nl = strrchr(buf_cstr(&kept), '\n')) ? nl + 1 :
		    buf_cstr(&kept));
		kept.data[kept.len - 1] = '\n';
		cursor = sc_int(d, "cursor");
		json_doc_free(d);
	}
	/* The reply after the head: the gap, said both ways. */
	from = json_int(json_get(gap, "fromCursor"));
	to = json_int(json_get(gap, "toCursor"));
	gap_lines = json_int(json_get(gap, "lines"));
	next = num_at(text);
	print_message("head ends after %ld at cursor %lld; the text goes on "
	    "with %ld at %lld; %lld lines, %lld bytes dropped\n", last,
	    (long long)from, next, (long long)to,
	    (long long)json_int(json_get(gap, "lines")),
	    (long long)json_int(json_get(gap, "bytes")));
	assert_int_equal(from, cursor);
	assert_true(to > from);
	assert_int_equal(json_int(json_get(gap, "bytes")), to - from);
	reason = json_str(json_get(gap, "reason"), NULL);
	if (strcmp(reason, "lost") == 0) {
		/* A machine so loaded that the reaper fell behind the pane
		 * by more than its writer holds: what never came is not
		 * counted, and the end is kept all the same. */
		print_message("output was lost on the way (a loaded "
		    "machine): the gap counts only what was read\n");
		assert_true(json_int(json_get(gap, "lines")) < next - last - 1);
		snprintf(msg, sizeof msg, "[%lld lines (%lld bytes) of the "
		    "output were not kept, between cursors %lld and %lld: "
		    "progmux fell behind the pane",
		    (long long)json_int(json_get(gap, "lines")),
		    (long long)(to - from), (long long)from, (long long)to);
	} else {
		assert_string_equal(reason, "ceiling");
		assert_int_equal(json_int(json_get(gap, "lines")), next - last -
		    1);
		snprintf(msg, sizeof msg, "[%lld lines (%lld bytes) of the "
		    "output were not kept, between cursors %lld and %lld: past "
		    "PROGMUX_OUTPUT_MAX_BYTES (1048576 bytes)",
		    (long long)(next - last - 1), (long long)(to - from),
		    (long long)from, (long long)to);
	}
	if (strstr(pmx_text(d), msg) == NULL)
		fail_msg("the text does not say \"%s\": %s", msg, pmx_text(d));
	/* Then the end, to the last line: head and end within the
	 * ceiling. */
	for (;;) {
		buf_adds(&kept, sc_str(d, "text"));
		cursor = sc_int(d, "cursor");
		if (sc_bool(d, "ended"))
			break;
		json_doc_free(d);
		d = rd_on(&c, id, "\"cursor\":%lld,\"timeoutMs\":0",
		    (long long)cursor);
		assert_null(json_get(pmx_sc(d), "outputGap"));
	}
	json_doc_free(d);
	print_message("kept %zu bytes of 6888896\n", kept.len);
	assert_true(kept.len <= 1048576);
	assert_true(kept.len > 1048576 / 2);
	assert_string_equal(buf_cstr(&kept) + kept.len - 8, "1000000\n");
	/* One filter over the head and the end, numbered as they were
	 * kept: after the head, the gap's lines (all those dropped at the
	 * ceiling; only those read, if some were lost on the way). */
	d = rd_on(&c, id, "\"filter\":\"^(7|%ld|999999)$\",\"timeoutMs\":0",
	    next);
	at = last + 1 + gap_lines;
	snprintf(msg, sizeof msg, "7:7\n%lld:%ld\n%lld:999999\n",
	    (long long)at, next, (long long)(at + (999999 - next)));
	assert_string_equal(sc_str(d, "text"), msg);
	assert_non_null(json_get(pmx_sc(d), "outputGap"));
	json_doc_free(d);
	buf_free(&kept);
	free(id);
	assert_int_equal(pmx_close(&c), 0);
}

/*
 * Pins the front's memory: three programs of 40 MB each, read to their
 * end and filtered whole, leave the front's peak RSS within a few MiB of
 * where it started (before, it kept 8 MiB of each in memory). Measured
 * from /proc; not under AddressSanitizer, whose shadow and quarantine are
 * not the front's.
 */
static void
test_front_rss(void **state)
{
	static const char prog[] = "{\"argv\":[\"nice\",\"python3\",\"-c\","
	    "\"import sys\\nw = sys.stdout.write\\nfor i in range(524288):\\n    w("
	    "'%07d %s\\\\n' % (i, 'FAIL' if i % 100000 == 7 else 'x' * "
	    "70))\\n\"]}";
	struct json_doc	*d;
	char		*id[3];
	long		 rss0, hwm, rss;
	int		 i;

	(void)state;
	rss0 = pmx_status_kb(group.front, "VmRSS");
	/* One after the other, niced: the machine is shared with the other
	 * tests, whose timings a burst of three would upset. */
	for (i = 0; i < 3; i++) {
		id[i] = pmx_start_program(&group, prog, NULL);
		assert_non_null(id[i]);
		d = rd_on(&group, id[i], "\"tail\":1,\"timeoutMs\":%d",
		    LONG_MS);
		assert_true(sc_bool(d, "ended"));
		assert_true(sc_bool(d, "outputComplete"));
		json_doc_free(d);
		d = rd_on(&group, id[i], "\"filter\":\"FAIL\","
		    "\"timeoutMs\":0");
		assert_int_equal(sc_int(d, "matchedLines"), 6);
		assert_int_equal(sc_int(d, "scannedLines"), 524288);
		json_doc_free(d);
		d = rd_on(&group, id[i], "\"until\":\"^0524287 \","
		    "\"timeoutMs\":0,\"maxLines\":1");
		assert_true(sc_bool(d, "matched"));
		json_doc_free(d);
	}
	hwm = pmx_status_kb(group.front, "VmHWM");
	rss = pmx_status_kb(group.front, "VmRSS");
	print_message("front RSS %ld KiB before, %ld KiB after 3 x 40 MB, "
	    "peak %ld KiB\n", rss0, rss, hwm);
	if (!SANITIZED)
		assert_true(hwm - rss0 < 8 * 1024);
	for (i = 0; i < 3; i++) {
		stop(id[i]);
		free(id[i]);
	}
}

/*
 * Pins: a program forgotten takes its spool with it: stopped at once;
 * read to its end and evicted past PROGMUX_KEEP_ENDED; and nothing is
 * left of any once progmux has ended.
 */
static void
test_spool_forgotten(void **state)
{
	const char	*env[] = { "PROGMUX_KEEP_ENDED=1", NULL };
	struct pmx	 c;
	struct json_doc	*d;
	char		*a, *b, *e, *pa, *pb, *pe, *dir, args[100];

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	dir = rundir_of(&c);
	a = pmx_start_program(&c, "{\"argv\":[\"sh\",\"-c\",\"seq 1 1000; "
	    "exec sleep 30\"]}", NULL);
	pa = spool_path(&c, a);
	free(pmx_read_until(&c, a, "\n1000\n", LONG_MS));
	assert_true(exists(pa));
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", a);
	json_doc_free(sc_call_ok(&c, "stop_program", args));
	assert_true(wait_path_gone(pa, 5000));
	/* Read to the end, then evicted by a later one's end. */
	b = pmx_start_program(&c, "{\"argv\":[\"seq\",\"1\",\"1000\"]}", NULL);
	pb = spool_path(&c, b);
	free(pmx_read_all(&c, b, LONG_MS, NULL));
	e = pmx_start_program(&c, "{\"argv\":[\"seq\",\"1\",\"10\"]}", NULL);
	pe = spool_path(&c, e);
	free(pmx_read_all(&c, e, LONG_MS, NULL));
	d = sc_call_ok(&c, "run_program", "{\"argv\":[\"true\"]}");
	json_doc_free(d);
	assert_true(wait_path_gone(pb, 5000));
	assert_int_equal(pmx_close(&c), 0);
	assert_false(exists(dir));
	free(a);
	free(b);
	free(e);
	free(pa);
	free(pb);
	free(pe);
	free(dir);
}

/* The full file system's test: its progmux and its tmpfs, undone by
 * its teardown whatever happened. */
static struct pmx	full_pmx;

#ifdef __linux__
static char		full_dir[1024];
static bool		full_mounted;

/* Fill the file system of dir: a file as large as it takes; its path. */
static char *
fill(const char *dir)
{
	static const char	 zero[65536];
	char			*path;
	int			 fd;

	xasprintf(&path, "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd != -1);
	while (write(fd, zero, sizeof zero) > 0)
		;
	close(fd);
	return (path);
}
#endif

/*
 * A mount namespace of the test's own (unshare -m: its mounts are seen
 * by nobody else and go with it), an 8 MiB tmpfs in the harness's
 * directory, and a robust progmux whose runtime directory is made there.
 * Root only; skips saying why elsewhere.
 */
static int
full_setup(void **state)
{
	(void)state;
	memset(&full_pmx, 0, sizeof full_pmx);
	full_pmx.to = full_pmx.from = full_pmx.err = -1;
#ifdef __linux__
	full_mounted = false;
#endif
	return (0);
}

/* The tmpfs goes before the directory it is in. */
static int
full_teardown(void **state)
{
	(void)state;
#ifdef __linux__
	if (full_pmx.to != -1) {
		close(full_pmx.to);
		full_pmx.to = -1;
		pmx_wait_exit(&full_pmx, 10000);
	}
	if (full_mounted && umount2(full_dir, MNT_DETACH) == -1)
		return (-1);
	full_mounted = false;
#endif
	if (full_pmx.dir[0] != '\0')
		return (pmx_close(&full_pmx) == 0 ? 0 : -1);
	return (0);
}

/*
 * Pins the full file system: in a tmpfs of 8 MiB a program
 * printing 31 MB ends as it should (no hang), its head and its end kept,
 * the gap said with reason diskFull, in the status line and a warning on
 * stderr naming the full file system; a start while the file system is
 * full to its last block is a clear error naming it, and works again
 * once there is room.
 */
static void
test_disk_full(void **state)
{
#ifdef __linux__
	struct pmx	*c = &full_pmx;
	struct json_doc	*d;
	char		 xdg[1100], *id, *filler, *text;
	const char	*env[] = { "PROGMUX_ROBUST=1", xdg, NULL };

	(void)state;
	PMX_NEED(geteuid() == 0, PMX_NO_MOUNT_NS);
	PMX_NEED(unshare(CLONE_NEWNS) == 0, PMX_NO_MOUNT_NS);
	assert_int_equal(mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL),
	    0);
	assert_int_equal(pmx_prepare(c), 0);
	snprintf(full_dir, sizeof full_dir, "%s/full", c->dir);
	assert_int_equal(mkdir(full_dir, 0700), 0);
	PMX_NEED(mount("tmpfs", full_dir, "tmpfs", 0, "size=8m,mode=0700") ==
	    0, PMX_NO_MOUNT_NS);
	full_mounted = true;
	snprintf(xdg, sizeof xdg, "XDG_RUNTIME_DIR=%s", full_dir);
	assert_int_equal(pmx_spawn(c, env, true), 0);

	id = pmx_start_program(c, "{\"argv\":[\"nice\",\"seq\",\"1\","
	    "\"4000000\"]}", NULL);
	assert_non_null(id);
	d = rd_on(c, id, "\"tail\":1,\"timeoutMs\":%d", LONG_MS);
	print_message("tail: %s\n", pmx_text(d));
	assert_string_equal(sc_str(d, "text"), "4000000\n");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_false(sc_bool(d, "lostEnd"));
	assert_true(sc_bool(d, "outputCut"));
	assert_non_null(strstr(pmx_text(d), "output cut (its file system is "
	    "full)"));
	json_doc_free(d);
	d = rd_on(c, id, "\"filter\":\"^(1|4000000)$\",\"timeoutMs\":0");
	assert_string_equal(sc_str(d, "text"), "1:1\n4000000:4000000\n");
	assert_string_equal(json_str(json_get(json_get(pmx_sc(d),
	    "outputGap"), "reason"), NULL), "diskFull");
	assert_non_null(strstr(pmx_text(d), "the file system holding "
	    "progmux's runtime directory"));
	json_doc_free(d);
	pmx_drain_err(c);
	assert_non_null(strstr(buf_cstr(&c->errlog), "is full (No space left "
	    "on device): the middle of its text is dropped"));

	/* Full to the last block: a start says so, and what to do. */
	filler = fill(full_dir);
	d = sc_call_err(c, "start_program", "{\"argv\":[\"true\"]}");
	text = xstrdup(pmx_text(d));
	json_doc_free(d);
	print_message("refused: %s\n", text);
	assert_non_null(strstr(text, "is full"));
	assert_non_null(strstr(text, full_dir));
	free(text);
	assert_int_equal(unlink(filler), 0);
	free(filler);
	d = sc_call_ok(c, "run_program", "{\"argv\":[\"echo\",\"room\"]}");
	assert_string_equal(sc_str(d, "text"), "room\n");
	json_doc_free(d);
	free(id);
#else
	(void)state;
	PMX_NEED(false, PMX_NO_MOUNT_NS);
#endif
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_300k_lines),
		cmocka_unit_test(test_ceiling_head_and_end),
		cmocka_unit_test(test_front_rss),
		cmocka_unit_test(test_spool_forgotten),
		cmocka_unit_test_setup_teardown(test_disk_full, full_setup,
		    full_teardown),
	};

	return (HARNESS_RUN("spool", tests, group_setup, group_teardown));
}
