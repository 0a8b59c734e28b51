/*
 * test_lease.c — a program outlives its front on a lease, and the next
 * progmux adopts it.
 *
 * The front is killed (SIGKILL) or ends its input with programs running
 * in desktop mode; a new progmux on the same tmux server and session
 * adopts them: the same ids, argv, start and lifetime deadline, marked
 * adopted; the text from cursor 0 the same bytes the old front gave,
 * then what came while no front was there, with no line lost; the old
 * cursor valid; send_keys, capture_pane, stop_program, READY=1 and the
 * lifetime working as before; new programs numbered after the adopted;
 * the first result saying what was adopted; a task of the old front
 * unknown, plainly. Without a new front a program is ended at its grace
 * (never before it) or its lifetime, whichever comes first, and one
 * started with orphanGraceMs 0 at once; robust mode keeps nothing. Two
 * fronts starting at once never both adopt a program, and a live
 * front's programs are never taken. A rendezvous that is a link, not
 * private, or another user's is refused (no lease at all); in it, a
 * socket that is no socket, another user's, silent, speaking garbage,
 * or naming a runtime directory not ours is never adopted from, and none
 * of them is told "adopt". The kills at random moments are test_death's.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "fdutil.h"
#include "frame.h"
#include "harness.h"
#include "proto.h"
#include "xmalloc.h"

#define GONE_MS		10000	/* generous: the machine is shared */
#define LONG_MS		20000

static const char	*lease_env[] = { "PROGMUX_ORPHAN_GRACE_MS=30000",
			    NULL };

/* A needle of this test process, numbered. */
static void
needle_of(char *buf, size_t size, int n)
{
	snprintf(buf, size, "lease%ldn%d", (long)getpid(), n);
}

/* Does text hold "line 1\n" ... "line K\n" and at most the start of
 * "line K+1" after them? K, or -1 with the first line that breaks it. */
static int
counted(const char *text)
{
	const char	*p = text, *lf;
	char		 want[32];
	int		 k = 0;

	while ((lf = strchr(p, '\n')) != NULL) {
		snprintf(want, sizeof want, "line %d", k + 1);
		if ((size_t)(lf - p) != strlen(want) ||
		    strncmp(p, want, (size_t)(lf - p)) != 0) {
			print_message("line %d is \"%.*s\"\n", k + 1,
			    (int)(lf - p), p);
			return (-1);
		}
		k++;
		p = lf + 1;
	}
	snprintf(want, sizeof want, "line %d", k + 1);
	return (strncmp(want, p, strlen(p)) == 0 ? k : -1);
}

/* Read until the text holds line n (or LONG_MS pass): the text. */
static char *
read_to_line(struct pmx *c, const char *id, int n)
{
	char	 want[32], *t;

	snprintf(want, sizeof want, "line %d\n", n);
	t = pmx_read_until(c, id, want, LONG_MS);
	if (t == NULL)
		fail_msg("%s never printed line %d", id, n);
	return (t);
}

/* End c's progmux by the end of its input: it exits 0. */
static void
end_front(struct pmx *c)
{
	close(c->to);
	c->to = -1;
	assert_int_equal(pmx_wait_exit(c, 10000), 0);
}

/* Start args; its programId. */
static char *
start_ok(struct pmx *c, const char *args, char **pane)
{
	char	*id = pmx_start_program(c, args, pane);

	if (id == NULL)
		fail_msg("start_program %s failed", args);
	return (id);
}

/* A progmux with a lease of 30 s and a counter of needle n running on
 * it: the counter's id. */
static char *
open_counter(struct pmx *c, char *needle, size_t size, int n)
{
	char	args[600];

	assert_int_equal(pmx_open(c, lease_env), 0);
	needle_of(needle, size, n);
	counter_args(args, sizeof args, needle, NULL);
	return (start_ok(c, args, NULL));
}

/* Start a counter of needle n asking for a grace of ask: the start says
 * there is none here, and the counter ends with its front, killed. */
static void
no_lease_start(struct pmx *c, char *needle, size_t size, int n,
    const char *ask)
{
	struct json_doc	*d;
	char		 args[600];

	needle_of(needle, size, n);
	counter_args(args, sizeof args, needle, ask);
	d = sc_call_ok(c, "start_program", args);
	assert_non_null(strstr(pmx_text(d), "orphanGraceMs is 0 here"));
	json_doc_free(d);
	/* (At least: its fork of sleep shows its command line a moment.) */
	assert_true(wait_some(needle, 1, GONE_MS) >= 1);
	pmx_kill_front(c);
	assert_int_equal(wait_none(needle, GONE_MS), 0);
}

/* Stop a program (by id). */
static void
stop_ok(struct pmx *c, const char *id)
{
	char	args[100];

	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(sc_call_ok(c, "stop_program", args));
}

/* The lease's rendezvous in c's TMPDIR. */
static void
rendezvous(const struct pmx *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s/progmux.lease.%lu", c->dir,
	    (unsigned long)geteuid());
}

/* Kill c's front and wait (at most GONE_MS) until n of its reapers
 * listen on their lease: a front started before that would not see
 * them (adoption looks once, at start-up). */
static void
kill_to_lease(struct pmx *c, int n)
{
	int	got;

	pmx_kill_front(c);
	if ((got = pmx_wait_lease_sockets(c, n, GONE_MS)) < n)
		fail_msg("%d of %d reapers on their lease", got, n);
}

/* Wait until deadline (now_ms) until nothing of c's programs is left:
 * no process of needle, no reaper, no pane outside "base", no runtime
 * directory, no socket in the rendezvous. Fails naming what is left. A
 * look begun by the deadline counts to its end: on the POSIX-only port
 * one look (ps, twice) takes hundreds of milliseconds on a busy machine,
 * on Linux (/proc) about one. */
static void
nothing_left_by(struct pmx *c, const char *needle, int64_t deadline)
{
	int64_t	t0 = now_ms(), look;
	char	reapers[400];
	int	progs, reap, panes, dirs, socks;

	snprintf(reapers, sizeof reapers, "%s/progmux-", c->dir);
	for (;;) {
		look = now_ms();
		progs = pmx_count_procs(needle);
		reap = pmx_count_procs(reapers);
		panes = foreign_panes(c);
		dirs = count_rundirs(c);
		socks = pmx_lease_sockets(c);
		if (progs + reap + panes + dirs + socks == 0)
			return;
		if (look > deadline)
			fail_msg("left after %lld ms: %d programs, %d reapers "
			    "or launchers, %d panes, %d runtime directories, "
			    "%d lease sockets", (long long)(now_ms() - t0),
			    progs, reap, panes, dirs, socks);
		poll(NULL, 0, 20);
	}
}

/* The same, within GONE_MS. */
static void
assert_nothing_left(struct pmx *c, const char *needle)
{
	nothing_left_by(c, needle, now_ms() + GONE_MS);
}

/* A program that says READY=1 on its NOTIFY_SOCKET once flag exists,
 * then waits; needle in its command line. */
static void
notify_args(char *buf, size_t size, const char *flag, const char *needle)
{
	snprintf(buf, size, "{\"argv\":[\"python3\",\"-c\",\"import os, "
	    "socket, sys, time\\nprint('up', flush=True)\\nwhile not "
	    "os.path.exists(sys.argv[1]):\\n    time.sleep(0.02)\\n"
	    "socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto("
	    "b'STATUS=serving\\\\nREADY=1', os.environ['NOTIFY_SOCKET'])\\n"
	    "time.sleep(120)\\n\",\"%s\",\"%s\"]}", flag, needle);
}

/*
 * SIGKILL the front of three programs (a counter, a reader of its
 * input, one that says READY=1 later); a new progmux adopts them all:
 * listed with the same ids, argv, start and lifetime deadline, marked
 * adopted, and its first result says so (structure and text) once; the
 * counter's text from 0 is the old front's bytes, then every line that
 * came while no front was there, then new ones; the old cursor reads
 * on from where it was; keys, the screen and READY=1 work; a new start
 * is numbered after them; a stop ends each, and nothing is left.
 */
static void
test_adopt(void **state)
{
	struct pmx		 c;
	struct json_doc		*l1, *l2, *d;
	const struct json	*e1, *e2, *ad;
	char			 needle[64], args[1200], flag[400], *ids[3];
	char			*before, *after, *from_old, *pane, *t;
	int64_t			 c1, c2, b1, a1, b2, a2;
	int			 i, k1, k2;

	(void)state;
	assert_int_equal(pmx_open(&c, lease_env), 0);
	needle_of(needle, sizeof needle, 1);
	snprintf(flag, sizeof flag, "%s/ready.flag", c.dir);
	counter_args(args, sizeof args, needle, NULL);
	ids[0] = start_ok(&c, args, NULL);
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"while read "
	    "l; do echo got $l; done; : %s\"]}", needle);
	ids[1] = start_ok(&c, args, &pane);
	notify_args(args, sizeof args, flag, needle);
	ids[2] = start_ok(&c, args, NULL);
	free(read_to_line(&c, ids[0], 5));
	before = read_now(&c, ids[0], 0, &c1);
	l1 = list_timed(&c, &b1, &a1);

	kill_to_lease(&c, 3);
	assert_int_equal(pmx_spawn(&c, NULL, true), 0);

	/* The first result says what was adopted, once. */
	l2 = list_timed(&c, &b2, &a2);
	ad = sc_get(l2, "adopted");
	assert_non_null(ad);
	assert_int_equal(json_int(json_get(ad, "count")), 3);
	for (i = 0; i < 3; i++)
		assert_string_equal(json_str(json_at(json_get(ad,
		    "programIds"), (size_t)i), NULL), ids[i]);
	if (strstr(pmx_text(l2), "adopted 3 programs") == NULL ||
	    strstr(pmx_text(l2), "p1, p2, p3") == NULL)
		fail_msg("the first result's text: %s", pmx_text(l2));
	for (i = 0; i < 3; i++) {
		e1 = entry_of(l1, ids[i]);
		e2 = entry_of(l2, ids[i]);
		assert_non_null(e2);
		assert_true(json_bool(json_get(e2, "adopted")));
		assert_true(json_equal(json_get(e1, "argv"),
		    json_get(e2, "argv")));
		assert_string_equal(json_str(json_get(e1, "startedAt"), NULL),
		    json_str(json_get(e2, "startedAt"), NULL));
		assert_string_equal(json_str(json_get(e1, "paneId"), NULL),
		    json_str(json_get(e2, "paneId"), NULL));
		assert_deadline_kept(ids[i], e1, b1, a1, e2, b2, a2);
	}
	json_doc_free(l1);
	json_doc_free(l2);
	d = sc_call_ok(&c, "list_programs", "{}");
	assert_null(sc_get(d, "adopted"));
	assert_null(strstr(pmx_text(d), "adopted 3"));
	json_doc_free(d);

	/* The text: the old front's bytes, then on, no line lost. */
	free(pmx_read_until(&c, ids[0], "line 60\n", LONG_MS));
	after = read_now(&c, ids[0], 0, &c2);
	if (strncmp(after, before, strlen(before)) != 0)
		fail_msg("the text from 0 is not the old front's: %zu bytes "
		    "then, now \"%.80s\"", strlen(before), after);
	k1 = counted(before);
	k2 = counted(after);
	print_message("%zu bytes before the kill (%d lines), %zu after "
	    "(%d)\n", strlen(before), k1, strlen(after), k2);
	assert_true(k1 >= 5);
	assert_true(k2 >= 60);
	from_old = read_now(&c, ids[0], c1, &c2);
	assert_true(strncmp(from_old, after + c1, strlen(after) - c1) == 0);
	free(before);
	free(after);
	free(from_old);

	/* Keys and the screen of an adopted pane. */
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"hello\","
	    "\"enter\":true,\"timeoutMs\":5000,\"until\":\"got hello\"}",
	    pane);
	d = sc_call_ok(&c, "send_keys", args);
	assert_non_null(strstr(sc_need_str(d, "text"), "got hello"));
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\"}", pane);
	d = sc_call_ok(&c, "capture_pane", args);
	assert_non_null(strstr(sc_need_str(d, "text"), "got hello"));
	json_doc_free(d);

	/* READY=1 after the adoption ends a read waiting for text. */
	t = read_now(&c, ids[2], 0, &c2);
	free(t);
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"cursor\":%lld,\"timeoutMs\":%d}}", ids[2],
	    (long long)c2, LONG_MS);
	b1 = pmx_send(&c, "tools/call", args);
	expect_ping_next(&c);		/* the read is waiting */
	i = open(flag, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(i >= 0);
	close(i);
	d = pmx_wait(&c, b1, LONG_MS + 5000);
	assert_non_null(d);
	assert_string_equal(sc_need_str(d, "reason"), "ready");
	assert_string_equal(sc_need_str(d, "status"), "serving");
	json_doc_free(d);

	/* Ours are numbered after them. */
	t = start_ok(&c, "{\"argv\":[\"true\"]}", NULL);
	assert_string_equal(t, "p4");
	free(t);

	for (i = 0; i < 3; i++) {
		stop_ok(&c, ids[i]);
		free(ids[i]);
	}
	end_front(&c);
	assert_nothing_left(&c, needle);
	free(pane);
	pmx_close(&c);
}

/*
 * The adopter's first control client does not attach in time (the tmux
 * server stopped while it starts: it is replaced by another, a new
 * generation): the adopted pane is still known as the program's, so
 * send_keys reads its reply (not "not the pane of a program progmux
 * started").
 */
static void
test_adopt_client_replaced(void **state)
{
	static const char	*env[] = { "PROGMUX_DEBUG=1", NULL };
	struct pmx		 c;
	struct json_doc		*d;
	char			 needle[64], args[600], *id, *pane, *out;
	bool			 replaced;
	long			 tpid;

	(void)state;
	assert_int_equal(pmx_open(&c, lease_env), 0);
	needle_of(needle, sizeof needle, 20);
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"echo up; "
	    "while read l; do echo got $l; done; : %s\"]}", needle);
	id = start_ok(&c, args, &pane);
	if ((out = pmx_read_until(&c, id, "up\n", LONG_MS)) == NULL)
		fail_msg("%s never printed up", id);
	free(out);
	out = pmx_tmux(&c, "display-message", "-p", "#{pid}", NULL);
	assert_non_null(out);
	tpid = strtol(out, NULL, 10);
	free(out);
	assert_true(tpid > 1);
	kill_to_lease(&c, 1);
	assert_int_equal(kill((pid_t)tpid, SIGSTOP), 0);
	if (pmx_spawn(&c, env, true) != 0) {
		kill((pid_t)tpid, SIGCONT);
		fail_msg("progmux did not start with its tmux server stopped");
	}
	replaced = stderr_has(&c, "did not attach");
	assert_int_equal(kill((pid_t)tpid, SIGCONT), 0);
	if (!replaced)
		fail_msg("the first control client was not replaced");
	assert_true(is_listed(&c, id));
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"hello\","
	    "\"enter\":true,\"timeoutMs\":10000,\"until\":\"got hello\"}",
	    pane);
	d = sc_call_ok(&c, "send_keys", args);
	if (strstr(pmx_text(d), "not the pane of a program") != NULL)
		fail_msg("the adopted pane is lost: %s", pmx_text(d));
	assert_non_null(strstr(sc_need_str(d, "text"), "got hello"));
	json_doc_free(d);
	stop_ok(&c, id);
	free(id);
	free(pane);
	end_front(&c);
	assert_nothing_left(&c, needle);
	pmx_close(&c);
}

/*
 * The end of input, not a kill: progmux exits 0 at once, its program
 * running on; the next adopts it, and once it is stopped and that one
 * exits the session progmux made is gone, the person's server as it was.
 */
static void
test_adopt_after_eof(void **state)
{
	struct pmx	 c;
	char		 needle[64], *id, *t;
	int64_t		 cursor;

	(void)state;
	id = open_counter(&c, needle, sizeof needle, 2);
	free(read_to_line(&c, id, 3));
	end_front(&c);
	assert_true(pmx_count_procs(needle) > 0);
	pmx_kill_front(&c);		/* (gone already: its pipes) */
	assert_int_equal(pmx_spawn(&c, NULL, true), 0);
	assert_true(is_listed(&c, id));
	t = read_now(&c, id, 0, &cursor);
	assert_true(counted(t) >= 3);
	free(t);
	stop_ok(&c, id);
	free(id);
	end_front(&c);
	assert_nothing_left(&c, needle);
	t = pmx_tmux(&c, "has-session", "-t", "=progmux", NULL);
	assert_null(t);
	pmx_close(&c);
}

/*
 * Its lifetime goes on while no front holds it: one whose lifetime ends
 * first is ended by it (long before its grace); one adopted ends as
 * expired, at its lifetime, under the new front.
 */
static void
test_lease_lifetime(void **state)
{
	struct pmx	 c;
	struct json_doc	*last = NULL;
	char		 needle[2][64], args[600], *id[2], *t;
	int64_t		 t0;

	(void)state;
	assert_int_equal(pmx_open(&c, lease_env), 0);
	needle_of(needle[0], sizeof needle[0], 3);
	needle_of(needle[1], sizeof needle[1], 4);
	counter_args(args, sizeof args, needle[0], "\"lifetimeMs\":6000");
	id[0] = start_ok(&c, args, NULL);
	counter_args(args, sizeof args, needle[1], "\"lifetimeMs\":2000");
	id[1] = start_ok(&c, args, NULL);
	free(read_to_line(&c, id[1], 1));	/* it runs */
	t0 = now_ms();
	pmx_kill_front(&c);
	/* Its grace is 30 s: gone well before it, at its lifetime. */
	if (wait_none(needle[1], 2000 + GONE_MS) != 0)
		fail_msg("%s outlived its lifetime on its lease", id[1]);
	print_message("the 2 s program ended %lld ms after the kill\n",
	    (long long)(now_ms() - t0));
	assert_int_equal(pmx_spawn(&c, NULL, true), 0);
	assert_true(is_listed(&c, id[0]));
	assert_false(is_listed(&c, id[1]));
	t = pmx_read_all(&c, id[0], LONG_MS, &last);
	assert_non_null(last);
	assert_string_equal(sc_need_str(last, "outcome"), "expired");
	assert_true(counted(t) > 0);
	free(t);
	json_doc_free(last);
	free(id[0]);
	free(id[1]);
	end_front(&c);
	assert_nothing_left(&c, needle[0]);
	pmx_close(&c);
}

/*
 * No new front: a program is held for its grace and never less (alive
 * whenever looked at before it), then by its grace + 1 s its whole tree
 * (a child of its own too), its pane, its reaper, its runtime directory
 * and its socket are gone; one started with orphanGraceMs 0 ends at
 * once.
 */
static void
test_grace_ends_it(void **state)
{
	static const char	*env[] = { "PROGMUX_ORPHAN_GRACE_MS=2000",
				    NULL };
	struct pmx		 c;
	char			 needle[2][64], child[80], args[600], *id;
	int64_t			 t0, t;
	int			 looks = 0;
	bool			 alive;

	(void)state;
	assert_int_equal(pmx_open(&c, env), 0);
	needle_of(needle[0], sizeof needle[0], 5);
	needle_of(needle[1], sizeof needle[1], 6);
	/* Its tree: the counter and a child holding the needle too (the
	 * child's whole name is in its command line alone). */
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"c=%s; sh "
	    "-c 'sleep 600; :' $c-child & i=0; while :; do i=$((i+1)); echo "
	    "line $i; sleep 0.02; done; : %s\"]}", needle[0], needle[0]);
	id = start_ok(&c, args, NULL);
	free(read_to_line(&c, id, 2));
	free(id);
	snprintf(child, sizeof child, "%s-child", needle[0]);
	assert_int_equal(wait_some(child, 1, GONE_MS), 1);
	counter_args(args, sizeof args, needle[1], "\"orphanGraceMs\":0");
	id = start_ok(&c, args, NULL);
	free(read_to_line(&c, id, 2));
	free(id);
	t0 = now_ms();
	pmx_kill_front(&c);
	assert_int_equal(wait_none(needle[1], GONE_MS), 0);
	/* Alive whenever looked at before the grace is over: a look over
	 * before it (t0 is before the kill, the lease begins after) must
	 * find it, child and all. */
	for (;;) {
		/* (The counter's fork of sleep shows its command line for
		 * a moment: at least the two.) */
		alive = pmx_count_procs(child) == 1 &&
		    pmx_count_procs(needle[0]) >= 2;
		t = now_ms();
		if (t >= t0 + 2000)
			break;
		if (!alive)
			fail_msg("ended %lld ms after the kill, within its "
			    "grace of 2000 ms", (long long)(t - t0));
		looks++;
		poll(NULL, 0, 100);
	}
	nothing_left_by(&c, needle[0], t0 + 2000 + 1000);
	print_message("held: seen alive %d times; all gone %lld ms after "
	    "the kill (grace 2000)\n", looks, (long long)(now_ms() - t0));
	assert_true(looks > 0);
	pmx_close(&c);
}

/* Robust mode keeps nothing past progmux, whatever is asked: its grace
 * is 0 (the start line and the start's text say so), no rendezvous is
 * made, and its program is gone once its front is killed. */
static void
test_robust_no_lease(void **state)
{
	static const char	*env[] = { "PROGMUX_ROBUST=1",
				    "PROGMUX_ORPHAN_GRACE_MS=60000", NULL };
	struct pmx		 c;
	char			 needle[64], dir[400], *g;
	struct stat		 st;

	(void)state;
	assert_int_equal(pmx_open_no_tmux(&c, env), 0);
	g = pmx_start_field(&c, "orphan grace", 10000);
	assert_non_null(g);
	assert_string_equal(g, "0 ms");
	free(g);
	no_lease_start(&c, needle, sizeof needle, 7,
	    "\"orphanGraceMs\":60000");
	rendezvous(&c, dir, sizeof dir);
	assert_int_equal(lstat(dir, &st), -1);
	pmx_close(&c);
}

/*
 * Two progmux starting at once after the front is killed: each program
 * is adopted by exactly one of them (its text from the start), none by
 * both.
 */
static void
test_two_fronts(void **state)
{
	struct pmx	 c, twin;
	struct json_doc	*l[2];
	char		 needle[64], args[600], *ids[4], *t;
	int64_t		 cursor;
	int		 i, held, both = 0;

	(void)state;
	assert_int_equal(pmx_open(&c, lease_env), 0);
	needle_of(needle, sizeof needle, 8);
	for (i = 0; i < 4; i++) {
		counter_args(args, sizeof args, needle, NULL);
		ids[i] = start_ok(&c, args, NULL);
	}
	free(read_to_line(&c, ids[3], 2));
	pmx_kill_front(&c);
	assert_int_equal(pmx_spawn(&c, NULL, false), 0);
	assert_int_equal(pmx_twin(&twin, &c, NULL, false), 0);
	free(negotiate(&c, "2025-06-18"));
	free(negotiate(&twin, "2025-06-18"));
	l[0] = sc_call_ok(&c, "list_programs", "{}");
	l[1] = sc_call_ok(&twin, "list_programs", "{}");
	for (i = 0; i < 4; i++) {
		held = (entry_of(l[0], ids[i]) != NULL) +
		    (entry_of(l[1], ids[i]) != NULL);
		if (held != 1)
			fail_msg("%s is held by %d of the two", ids[i], held);
		t = read_now(entry_of(l[0], ids[i]) != NULL ? &c : &twin,
		    ids[i], 0, &cursor);
		assert_true(counted(t) >= 1);
		free(t);
		both += entry_of(l[1], ids[i]) != NULL;
	}
	print_message("the first took %d, the second %d\n", 4 - both, both);
	json_doc_free(l[0]);
	json_doc_free(l[1]);
	for (i = 0; i < 4; i++) {
		stop_ok(is_listed(&c, ids[i]) ? &c : &twin, ids[i]);
		free(ids[i]);
	}
	assert_int_equal(pmx_twin_close(&twin), 0);
	end_front(&c);
	assert_nothing_left(&c, needle);
	pmx_close(&c);
}

/* A live front's programs are never taken: a second progmux on the same
 * server and session adopts nothing, and the first reads on. */
static void
test_live_front_kept(void **state)
{
	struct pmx	 c, twin;
	struct json_doc	*d;
	char		 needle[64], *id;

	(void)state;
	id = open_counter(&c, needle, sizeof needle, 9);
	assert_int_equal(pmx_twin(&twin, &c, lease_env, true), 0);
	d = sc_call_ok(&twin, "list_programs", "{}");
	assert_null(sc_get(d, "adopted"));
	assert_int_equal(json_len(sc_get(d, "programs")), 0);
	json_doc_free(d);
	assert_int_equal(pmx_twin_close(&twin), 0);
	free(pmx_read_until(&c, id, "line 10\n", LONG_MS));
	stop_ok(&c, id);
	free(id);
	end_front(&c);
	assert_nothing_left(&c, needle);
	pmx_close(&c);
}

/*
 * A task is the front's: after its front is killed, tasks/get of it on
 * the progmux that adopted its program says plainly that tasks end with
 * the progmux that ran them, and that the programs are adopted.
 */
static void
test_task_unknown(void **state)
{
	struct pmx		 c;
	struct json_doc		*d;
	const struct json	*r, *err;
	char			 needle[64], args[600], *id, *task, *v;
	int64_t			 rid;

	(void)state;
	id = open_counter(&c, needle, sizeof needle, 10);
	pmx_kill_front(&c);
	assert_int_equal(pmx_spawn(&c, lease_env, false), 0);
	v = negotiate(&c, "2025-11-25");
	free(v);
	send_line(&c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}");
	/* A task on this front, for its id's shape; then the front goes. */
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"task\":{},"
	    "\"arguments\":{\"programId\":\"%s\",\"timeoutMs\":30000,"
	    "\"until\":\"never here\"}}", id);
	rid = pmx_send(&c, "tools/call", args);
	d = pmx_wait(&c, rid, LONG_MS);
	assert_non_null(d);
	r = json_get(json_get(json_root(d), "result"), "task");
	assert_non_null(r);
	task = xstrdup(json_str(json_get(r, "taskId"), NULL));
	json_doc_free(d);
	pmx_kill_front(&c);
	assert_int_equal(pmx_spawn(&c, NULL, false), 0);
	v = negotiate(&c, "2025-11-25");
	free(v);
	snprintf(args, sizeof args, "{\"taskId\":\"%s\"}", task);
	rid = pmx_send(&c, "tasks/get", args);
	d = pmx_wait(&c, rid, REPLY_MS);
	assert_non_null(d);
	err = json_get(json_root(d), "error");
	assert_non_null(err);
	assert_int_equal(json_int(json_get(err, "code")), -32602);
	if (strstr(json_str(json_get(err, "message"), NULL), "a task lives "
	    "only as long as the progmux that ran it") == NULL)
		fail_msg("tasks/get: %s", json_str(json_get(err, "message"),
		    NULL));
	json_doc_free(d);
	assert_true(is_listed(&c, id));
	stop_ok(&c, id);
	free(task);
	free(id);
	end_front(&c);
	assert_nothing_left(&c, needle);
	pmx_close(&c);
}

/*
 * The rendezvous is a symbolic link, a directory others may enter, or
 * (as root) another user's: progmux says so and holds no lease (the
 * start's text says orphanGraceMs is 0), and its program ends with it;
 * nothing is made through the link.
 */
static void
test_rendezvous_refused(void **state)
{
	struct pmx	 c;
	char		 dir[400], target[400], needle[64];
	struct stat	 st;
	int		 round;

	(void)state;
	for (round = 0; round < 3; round++) {
		if (round == 2 && geteuid() != 0) {
			print_message("not root: another user's rendezvous "
			    "is not tried\n");
			break;
		}
		assert_int_equal(pmx_open(&c, lease_env), 0);
		pmx_kill_front(&c);	/* (its own rendezvous, replaced) */
		rendezvous(&c, dir, sizeof dir);
		snprintf(target, sizeof target, "%s/elsewhere", c.dir);
		assert_int_equal(rmdir(dir), 0);
		if (round == 0) {
			assert_int_equal(mkdir(target, 0700), 0);
			assert_int_equal(symlink(target, dir), 0);
		} else {
			assert_int_equal(mkdir(dir, round == 1 ? 0700 : 0700),
			    0);
			assert_int_equal(chmod(dir, round == 1 ? 0755 : 0700),
			    0);
			if (round == 2)
				assert_int_equal(chown(dir, 65534, 65534), 0);
		}
		assert_int_equal(pmx_spawn(&c, lease_env, true), 0);
		assert_true(stderr_has(&c, "no program can outlive progmux"));
		no_lease_start(&c, needle, sizeof needle, 11 + round,
		    "\"orphanGraceMs\":30000");
		if (round == 0) {
			assert_int_equal(rmdir(target), 0);	/* empty */
		} else {
			assert_int_equal(stat(dir, &st), 0);
			assert_int_equal(pmx_lease_sockets(&c), 0);
		}
		pmx_close(&c);
	}
}

/* A socket in the rendezvous that is not a reaper's: it serves what it
 * is given to each connection, then reports on its pipe whether it was
 * told "adopt" ('A') or anything ('x'). Bound as we are; listening (what
 * the kernel tells a peer of it) as uid, if not 0. */
struct fake {
	pid_t	pid;
	int	report;
};

/* The fakes running, ended by their pid at exit if a test failed. */
static pid_t	fakes[8];

static void
fakes_end(void)
{
	size_t	i;

	for (i = 0; i < sizeof fakes / sizeof fakes[0]; i++)
		if (fakes[i] > 0) {
			kill(fakes[i], SIGKILL);
			waitpid(fakes[i], NULL, 0);
			fakes[i] = 0;
		}
}

static void
fake_serve(int fd, const struct buf *say, int report)
{
	struct buf	 in = BUF_INIT;
	struct msg	 m;
	char		*cause = NULL;
	int		 c;

	for (;;) {
		if ((c = accept(fd, NULL, NULL)) == -1)
			continue;
		if (say->len > 0 && write(c, say->data, say->len) < 0)
			_exit(1);
		buf_reset(&in);
		while (fd_read_into(c, &in, 4096) > 0) {
			if (frame_take(&in, &m, &cause) == 1) {
				(void)!write(report, msg_is(&m, MSG_ADOPT) ?
				    "A" : "x", 1);
				msg_free(&m);
			}
		}
		close(c);
	}
}

static struct fake
fake_start(const char *path, const struct buf *say, uid_t uid)
{
	struct sockaddr_un	sa;
	struct fake		f;
	char			ready;
	int			fd, p[2], i;

	assert_int_equal(pipe(p), 0);
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	assert_true((fd = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	if ((f.pid = fork()) == 0) {
		close(p[0]);
		/* (Nothing of the test's output: a reader waits for its end.) */
		if ((i = open("/dev/null", O_RDWR)) != -1) {
			dup2(i, STDIN_FILENO);
			dup2(i, STDOUT_FILENO);
			dup2(i, STDERR_FILENO);
		}
		if ((uid != 0 && setuid(uid) == -1) || listen(fd, 8) == -1 ||
		    write(p[1], "L", 1) != 1)
			_exit(1);
		fake_serve(fd, say, p[1]);
	}
	for (i = 0; i < (int)(sizeof fakes / sizeof fakes[0]); i++)
		if (fakes[i] == 0) {
			fakes[i] = f.pid;
			break;
		}
	close(fd);
	close(p[1]);
	assert_int_equal(read(p[0], &ready, 1), 1);	/* listening */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	f.report = p[0];
	return (f);
}

/* End a fake; what it was told ("" for nothing), allocated. */
static char *
fake_end(struct fake *f)
{
	char	buf[64];
	ssize_t	n;
	size_t	i;

	kill(f->pid, SIGKILL);
	waitpid(f->pid, NULL, 0);
	for (i = 0; i < sizeof fakes / sizeof fakes[0]; i++)
		if (fakes[i] == f->pid)
			fakes[i] = 0;
	n = read(f->report, buf, sizeof buf - 1);
	close(f->report);
	buf[n > 0 ? n : 0] = '\0';
	return (xstrdup(buf));
}

/* A lease frame as a reaper sends it, for program p7 of our tmux server
 * and session, whose runtime directory is rundir (its id from stat). */
static void
fake_lease(struct buf *out, const struct pmx *c, const char *rundir,
    int64_t orphaned)
{
	static char	*argv[] = { (char *)"secret-keeper", NULL };
	struct msg_out	 m;
	struct stat	 st;
	char		 id[64];

	assert_int_equal(stat(rundir, &st), 0);
	snprintf(id, sizeof id, "%llu:%llu", (unsigned long long)st.st_dev,
	    (unsigned long long)st.st_ino);
	msg_begin(&m, MSG_LEASE, 23);
	msg_int(&m, "v", PROTO_VERSION);
	msg_int(&m, "pid", 4242);
	msg_str(&m, "id", "p7");
	msg_str(&m, "session", "progmux");
	msg_str(&m, "server", c->sock);
	msg_str(&m, "rundir", rundir);
	msg_str(&m, "rundir_id", id);
	msg_strv(&m, "argv", argv, 1);
	msg_int(&m, "shown", 0);
	msg_str(&m, "dir", NULL);
	msg_int(&m, "width", 0);
	msg_int(&m, "height", 0);
	msg_int(&m, "lifetime_ms", 600000);
	msg_int(&m, "started_ms", now_ms());
	msg_int(&m, "started_real", 0);
	msg_bool(&m, "keep_pane", false);
	msg_bool(&m, "separate_stderr", false);
	msg_bool(&m, "verdict", false);
	msg_str(&m, "pane", "%99");
	msg_int(&m, "pane_pid", 4242);
	msg_int(&m, "grace_ms", 60000);
	msg_bool(&m, "stopping", false);
	msg_int(&m, "orphaned", orphaned);
	msg_end(&m, out);
}

/*
 * A rendezvous holding, beside a real reaper's socket: a socket that
 * speaks garbage, one that is silent, a file and a link named as
 * sockets, and (as root) a socket file of another user and a listener
 * running as another user that serves a well-formed lease. The next
 * progmux starts, adopts the real program alone, and tells none of the
 * others "adopt". Then, alone, a well-formed lease of our own user
 * whose runtime directory is not a private one of ours (holding a
 * spool), and as root one of another user's: nothing is adopted, the
 * fake is never told "adopt", and that spool stays where it is.
 */
static void
test_crafted_rendezvous(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	struct fake	 f[4];
	struct buf	 garbage = BUF_INIT, none = BUF_INIT, lease = BUF_INIT;
	char		 dir[400], path[700], needle[64], *id, *got;
	char		 other[500], spool[600];
	int		 nf = 0, i, fd, round;
	bool		 root = geteuid() == 0;

	(void)state;
	id = open_counter(&c, needle, sizeof needle, 14);
	kill_to_lease(&c, 1);
	rendezvous(&c, dir, sizeof dir);
	buf_add(&garbage, "\0\0\0\x05" "garbage, no msgpack", 23);
	snprintf(path, sizeof path, "%s/900001.lease", dir);
	f[nf++] = fake_start(path, &garbage, 0);
	snprintf(path, sizeof path, "%s/900002.lease", dir);
	f[nf++] = fake_start(path, &none, 0);
	snprintf(path, sizeof path, "%s/900003.lease", dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC,
	    0600)) >= 0);
	close(fd);
	snprintf(path, sizeof path, "%s/900004.lease", dir);
	snprintf(other, sizeof other, "%s/900001.lease", dir);
	assert_int_equal(symlink(other, path), 0);
	if (root) {
		snprintf(path, sizeof path, "%s/900005.lease", dir);
		f[nf++] = fake_start(path, &none, 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
		snprintf(other, sizeof other, "%s/theirs", c.dir);
		assert_int_equal(mkdir(other, 0700), 0);
		fake_lease(&lease, &c, other, INT64_MAX);
		snprintf(path, sizeof path, "%s/900006.lease", dir);
		f[nf++] = fake_start(path, &lease, 65534);
	} else
		print_message("not root: no other user's socket tried\n");
	assert_int_equal(pmx_spawn(&c, NULL, true), 0);
	d = sc_call_ok(&c, "list_programs", "{}");
	assert_int_equal(json_len(sc_get(d, "programs")), 1);
	assert_non_null(entry_of(d, id));
	json_doc_free(d);
	for (i = 0; i < nf; i++) {
		got = fake_end(&f[i]);
		if (strchr(got, 'A') != NULL)
			fail_msg("fake %d was told adopt", i);
		free(got);
	}
	for (i = 900001; i <= 900006; i++) {	/* what we planted */
		snprintf(path, sizeof path, "%s/%d.lease", dir, i);
		(void)unlink(path);
	}
	stop_ok(&c, id);
	free(id);
	end_front(&c);
	assert_nothing_left(&c, needle);
	pmx_close(&c);

	/* A lease naming a runtime directory that is not a private one of
	 * ours: 0755, then (as root) another user's. */
	for (round = 0; round < 2; round++) {
		if (round == 1 && !root)
			break;
		assert_int_equal(pmx_open(&c, lease_env), 0);
		pmx_kill_front(&c);
		rendezvous(&c, dir, sizeof dir);
		snprintf(other, sizeof other, "%s/progmux-Fake01", c.dir);
		assert_int_equal(mkdir(other, 0700), 0);
		snprintf(spool, sizeof spool, "%s/p7.text", other);
		assert_int_equal(mkdir(spool, 0700), 0);
		snprintf(path, sizeof path, "%s/o0", spool);
		assert_true((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC,
		    0600)) >= 0);
		assert_int_equal(write(fd, "secret\n", 7), 7);
		close(fd);
		assert_int_equal(chmod(other, round == 0 ? 0755 : 0700), 0);
		if (round == 1) {
			assert_int_equal(chown(spool, 65534, 65534), 0);
			assert_int_equal(chown(other, 65534, 65534), 0);
		}
		buf_reset(&lease);
		fake_lease(&lease, &c, other, 1);
		snprintf(path, sizeof path, "%s/900007.lease", dir);
		f[0] = fake_start(path, &lease, 0);
		assert_int_equal(pmx_spawn(&c, NULL, true), 0);
		d = sc_call_ok(&c, "list_programs", "{}");
		assert_int_equal(json_len(sc_get(d, "programs")), 0);
		assert_null(sc_get(d, "adopted"));
		json_doc_free(d);
		d = sc_call_err(&c, "read_program", "{\"programId\":\"p7\"}");
		json_doc_free(d);
		got = fake_end(&f[0]);
		if (strchr(got, 'A') != NULL)
			fail_msg("a lease of a directory not ours was told "
			    "adopt (round %d)", round);
		free(got);
		snprintf(path, sizeof path, "%s/o0", spool);
		assert_int_equal(access(path, F_OK), 0);	/* not taken */
		pmx_close(&c);
	}
	buf_free(&garbage);
	buf_free(&lease);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adopt),
		cmocka_unit_test(test_adopt_after_eof),
		cmocka_unit_test(test_adopt_client_replaced),
		cmocka_unit_test(test_lease_lifetime),
		cmocka_unit_test(test_grace_ends_it),
		cmocka_unit_test(test_robust_no_lease),
		cmocka_unit_test(test_two_fronts),
		cmocka_unit_test(test_live_front_kept),
		cmocka_unit_test(test_task_unknown),
		cmocka_unit_test(test_rendezvous_refused),
		cmocka_unit_test(test_crafted_rendezvous),
	};

	/* No login shell (the person's profile) in any pane we cause. */
	setenv("SHELL", "/bin/sh", 1);
	atexit(fakes_end);
	/* Runtime directories and the rendezvous under each harness's
	 * TMPDIR, to be found. */
	unsetenv("XDG_RUNTIME_DIR");
	unsetenv("TMUX_TMPDIR");
	return (HARNESS_RUN("lease", tests, NULL, NULL));
}
