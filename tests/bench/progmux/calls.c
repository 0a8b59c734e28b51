/*
 * calls.c — progmux driven by our own loop, which stamps each reply the
 * moment its last bytes arrive, so the figures are the server's and not
 * the client's; the harness opened with the figures' ceilings and
 * cleaned up on a signal.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "client.h"
#include "compat.h"
#include "json.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"

#include "bench.h"

struct pmx	*live_pmx;
struct ctl	*live_ctl;
pid_t		 waiter_pid = -1;	/* a tmux wait-for client */

/* CLOCK_REALTIME in nanoseconds. */
int64_t
realtime_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

/* Sleep ms milliseconds. */
void
sleep_ms(int ms)
{
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Kill what a signal interrupted: progmux, the control client, tmux. */
void
bench_signal(int sig)
{
	pid_t	pid;

	(void)sig;
	if (live_ctl != NULL && live_ctl->pid > 0)
		kill(live_ctl->pid, SIGKILL);
	if (waiter_pid > 0)
		kill(waiter_pid, SIGKILL);
	if (live_pmx != NULL) {
		if (live_pmx->pid > 0)
			kill(live_pmx->pid, SIGTERM);
		if ((pid = fork()) == 0) {
			execlp("tmux", "tmux", "-S", live_pmx->sock,
			    "kill-server", (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		if (strncmp(live_pmx->dir, "/tmp/progmux-test-", 18) == 0 &&
		    (pid = fork()) == 0) {
			execlp("rm", "rm", "-rf", live_pmx->dir, (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	_exit(2);
}

/*
 * The client loop. These read progmux's stdout through the pmx's own
 * buffer, so they must not be mixed with pmx_wait() on the same pmx after
 * pmx_open() (which leaves nothing held).
 */

/* The id of a reply, or -1. */
int64_t
bc_id(const struct json_doc *d)
{
	const struct json	*v = json_get(json_root(d), "id");

	if (v == NULL || json_type(v) != JSON_NUMBER || !json_is_int(v))
		return (-1);
	return (json_int(v));
}

/* Send a tools/call; returns its id. */
static int64_t
bc_send(struct pmx *c, const char *tool, const char *args)
{
	struct buf	b = BUF_INIT;
	int64_t		id;

	buf_printf(&b, "{\"name\":\"%s\",\"arguments\":%s}", tool, args);
	id = pmx_send(c, "tools/call", buf_cstr(&b));
	buf_free(&b);
	return (id);
}

/* Call a tool and wait for its reply; *us is call to receipt. */
struct json_doc *
bc_call(struct pmx *c, const char *tool, const char *args, int64_t *us)
{
	struct json_doc	*d;
	int64_t		 t0, id, deadline = now_ms() + CALL_MS;

	t0 = now_us();
	id = bc_send(c, tool, args);
	while ((d = pmx_read_line(c, (int)(deadline - now_ms()))) != NULL) {
		if (bc_id(d) == id) {
			if (us != NULL)
				*us = c->read_us - t0;
			return (d);
		}
		json_doc_free(d);
	}
	bench_broke("%s %s: no reply from progmux within %d ms", tool, args,
	    CALL_MS);
	return (NULL);
}

/* A reply that is a result and not an error; else say why and NULL. */
const struct json *
bc_ok(struct json_doc *d, const char *what)
{
	const struct json	*sc;

	if (d == NULL)
		return (NULL);
	if (pmx_result(d) == NULL || pmx_is_error(d) ||
	    (sc = pmx_sc(d)) == NULL) {
		bench_broke("%s failed: %s", what, pmx_text(d));
		return (NULL);
	}
	return (sc);
}

/* start_program argv (JSON array text); the programId or NULL. */
char *
bc_start(struct pmx *c, const char *argv_json, int64_t *us)
{
	struct json_doc		*d;
	const struct json	*sc;
	char			*args, *id = NULL;

	xasprintf(&args, "{\"argv\":%s}", argv_json);
	d = bc_call(c, "start_program", args, us);
	if ((sc = bc_ok(d, "start_program")) != NULL)
		id = xstrdup(json_str(json_get(sc, "programId"), NULL));
	json_doc_free(d);
	free(args);
	return (id);
}

/* stop_program, waiting for its answer. */
void
bc_stop(struct pmx *c, const char *id)
{
	char	*args;

	xasprintf(&args, "{\"programId\":\"%s\"}", id);
	json_doc_free(bc_call(c, "stop_program", args, NULL));
	free(args);
}

/* Send a read_program; returns its id. */
int64_t
bc_send_read(struct pmx *c, const char *id, int64_t cursor, int timeout)
{
	char	args[256];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":%d}", id, (long long)cursor, timeout);
	return (bc_send(c, "read_program", args));
}

/* read_program from cursor, waiting for its reply. */
struct json_doc *
bc_read(struct pmx *c, const char *id, int64_t cursor, int timeout)
{
	char	args[256];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":%d}", id, (long long)cursor, timeout);
	return (bc_call(c, "read_program", args, NULL));
}

/* Does tools/list name this tool? */
bool
bc_has_tool(const struct json_doc *d, const char *name)
{
	const struct json	*tools, *n;
	size_t			 i;

	tools = json_get(json_get(json_root(d), "result"), "tools");
	for (i = 0; i < json_len(tools); i++) {
		n = json_get(json_at(tools, i), "name");
		if (n != NULL && strcmp(json_str(n, NULL), name) == 0)
			return (true);
	}
	return (false);
}

/* The ceilings the figures need. */
const char *const bench_env[] = {
	"PROGMUX_MAX_PROGRAMS=300",
	"PROGMUX_KEEP_ENDED=300",
	"PROGMUX_OUTPUT_MAX_BYTES=67108864",
	NULL
};

/* Open the harness with those ceilings. */
int
bench_open(struct pmx *c)
{
	const char *const	*env = bench_env;

	if (pmx_open(c, env) == -1) {
		bench_broke("could not start tmux and progmux (%s)",
		    c->errlog.len ? c->errlog.data : "no stderr");
		pmx_close(c);
		return (-1);
	}
	live_pmx = c;
	return (0);
}

/* Close the harness: progmux, its programs, the private tmux server. */
void
bench_close(struct pmx *c)
{
	live_pmx = NULL;
	pmx_close(c);
}
