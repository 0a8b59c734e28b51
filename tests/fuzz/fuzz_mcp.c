/*
 * fuzz_mcp.c — libFuzzer harness for the front's JSON-RPC input path.
 *
 * Each input goes to mcp_input() as stdin bytes would, in two pieces split
 * at a point taken from the first byte (so partial lines are buffered and
 * joined), then mcp_input_eof(). The front runs without tmux: cfg names a
 * tmux binary that does not exist, so start_program, run_program,
 * capture_pane and send_keys fail with a tool error before any reaper
 * could be spawned. As a second guard the link wraps fork() and
 * posix_spawn() (see the Makefile): fork fails, so no child process is
 * ever made; a fork while a program other than the fixtures exists, or
 * any posix_spawn (the reaper's), aborts.
 *
 * So that read_program, stop_program, list_programs and cancellation reach
 * past "unknown programId", each input starts with two fixture programs
 * made by hand (no reaper, no pane process): p1 running with some text,
 * p2 ended. Requests still waiting after the input (reads, stops) are
 * then timed out at once: loop_run_timers() runs every timer as if its
 * time had come; no call may be left waiting after that.
 *
 * Every reply is drained into a memfd through mcp_flush() (FUZZ_MCP_SHOW=1
 * in the environment prints it on stderr), and each output line must be
 * JSON-RPC 2.0: one object, or a non-empty batch array of them. A request still parked after its deadline passed is a
 * finding (it would never be answered); so is a program other than the
 * fixtures. State thus never grows across inputs.
 */
#include <sys/mman.h>
#include <sys/types.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "server.h"
#include "textbuf.h"
#include "timeutil.h"
#include "xmalloc.h"

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
pid_t	__wrap_fork(void);
int	__wrap_posix_spawn(pid_t *, const char *, const void *, const void *,
	    char *const [], char *const []);

#define FUZZ_VERSION	"2025-11-25"	/* each input starts with it */
#define FUZZ_FIXTURES	2		/* p1 running, p2 ended */

static int	fuzz_out = -1;		/* memfd that mcp_flush writes to */
static int	fuzz_show;		/* FUZZ_MCP_SHOW: print the output */
static char	*fuzz_buf;		/* output read back */
static size_t	 fuzz_cap;

/*
 * fork() as the server's objects see it (-Wl,--wrap=fork): always fails.
 * cspawn_start for tmux's version probe is the only caller expected (a
 * failed fork reads as "cannot run tmux", at once, as the exec failing
 * would). A program beyond the
 * fixtures while forking means a reaper is being spawned: the tmux guard
 * failed.
 */
static int	fuzz_strangers(void);

pid_t
__wrap_fork(void)
{
	if (fuzz_strangers()) {
		fprintf(stderr, "fork for a reaper, without tmux\n");
		abort();
	}
	errno = EAGAIN;
	return (-1);
}

/* posix_spawn() as the server's objects see it: only reapers use it. */
int
__wrap_posix_spawn(pid_t *pid, const char *path, const void *fa,
    const void *attr, char *const argv[], char *const envp[])
{
	(void)pid;
	(void)fa;
	(void)attr;
	(void)argv;
	(void)envp;
	fprintf(stderr, "posix_spawn %s, without tmux\n", path);
	abort();
}

/* Programs in the table that are not fixtures. */
static int
fuzz_strangers(void)
{
	struct program	*p;

	for (p = program_first(); p != NULL; p = program_next(p))
		if (program_seq(p) > FUZZ_FIXTURES)
			return (1);
	return (0);
}

/* One fixture program: argv, a pane id, text, and how it stands. */
static void
fuzz_fixture(const char *argv0, const char *text, bool ended)
{
	struct program		*p = program_new();
	struct program_spec	 spec;
	char			 pane[32];

	memset(&spec, 0, sizeof spec);
	spec.argc = 2;
	spec.argv = xcalloc(3, sizeof *spec.argv);
	spec.argv[0] = xstrdup(argv0);
	spec.argv[1] = xstrdup("--fixture");
	spec.lifetime_ms = 600000;
	snprintf(pane, sizeof pane, "%%%llu",
	    (unsigned long long)(program_seq(p) + 10));
	program_fixture(p, &spec, pane, text, ended);
}

/* Start from the fixtures alone, numbered p1 and p2 again. */
static void
fuzz_fixtures(void)
{
	struct program	*p;

	while ((p = program_first()) != NULL)
		program_drop(p);
	programs_collect();
	programs_init();
	fuzz_fixture("make", "building\n\xc3\xa9t\xc3\xa9\nstill going",
	    false);
	fuzz_fixture("true", "one\ntwo\nthree\n", true);
}

/* The ceilings and paths a front without tmux runs with. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char	*cause = NULL;

	(void)argc;
	(void)argv;
	memset(&cfg, 0, sizeof cfg);
	cfg.tmux_bin = xstrdup("/nonexistent/tmux");
	cfg.session = xstrdup("progmux");
	cfg.robust = false;
	cfg.wait_max_ms = 30000;
	cfg.output_max_bytes = 1024 * 1024;
	cfg.total_output_max_bytes = 256 * 1024 * 1024;
	cfg.keep_ended = 32;
	cfg.max_programs = 64;
	cfg.lifetime_max_ms = 3600000;
	cfg.reaper_path = xstrdup("/nonexistent/progmux-reaper");
	cfg.rundir = xstrdup("/nonexistent-rundir");
	mcp_init();
	programs_init();
	if (tools_init(&cause) == -1) {
		fprintf(stderr, "tools_init: %s\n", cause);
		abort();
	}
	fuzz_show = getenv("FUZZ_MCP_SHOW") != NULL;
	if ((fuzz_out = memfd_create("fuzz_mcp_out", MFD_CLOEXEC)) == -1) {
		perror("memfd_create");
		abort();
	}
	return (0);
}

/* Read back what mcp_flush wrote; empty the memfd again. */
static size_t
fuzz_collect(void)
{
	off_t	end;
	ssize_t	n;
	size_t	got = 0;

	while (mcp_output_pending()) {
		if (mcp_flush(fuzz_out) == -1) {
			perror("mcp_flush");
			abort();
		}
	}
	if ((end = lseek(fuzz_out, 0, SEEK_CUR)) == -1)
		abort();
	if ((size_t)end + 1 > fuzz_cap) {
		fuzz_cap = (size_t)end + 1;
		fuzz_buf = xrealloc(fuzz_buf, fuzz_cap);
	}
	while (got < (size_t)end) {
		n = pread(fuzz_out, fuzz_buf + got, (size_t)end - got,
		    (off_t)got);
		if (n <= 0)
			abort();
		got += (size_t)n;
	}
	if (ftruncate(fuzz_out, 0) == -1 || lseek(fuzz_out, 0, SEEK_SET) != 0)
		abort();
	return (got);
}

/* Is j one JSON-RPC 2.0 message? */
static int
fuzz_is_message(const struct json *j)
{
	const struct json	*jv = json_get(j, "jsonrpc");
	size_t			 len;

	return (json_type(j) == JSON_OBJECT && json_type(jv) == JSON_STRING &&
	    json_str(jv, &len) != NULL && len == 3 &&
	    memcmp(json_str(jv, NULL), "2.0", 3) == 0);
}

/* Every line written is one JSON-RPC message or a non-empty batch. */
static void
fuzz_check_output(const char *out, size_t len)
{
	const char		*p = out, *nl;
	struct json_doc		*doc;
	const struct json	*root;
	char			*cause = NULL;
	size_t			 n, i;
	int			 ok;

	if (len > 0 && out[len - 1] != '\n') {
		fprintf(stderr, "output does not end with a newline\n");
		abort();
	}
	while (p < out + len) {
		nl = memchr(p, '\n', (size_t)(out + len - p));
		n = (size_t)(nl - p);
		if ((doc = json_parse(p, n, &cause)) == NULL) {
			fprintf(stderr, "invalid output line (%s): %.*s\n",
			    cause, (int)(n > 4096 ? 4096 : n), p);
			abort();
		}
		root = json_root(doc);
		if (json_type(root) == JSON_ARRAY) {
			ok = json_len(root) > 0;
			for (i = 0; ok && i < json_len(root); i++)
				ok = fuzz_is_message(json_at(root, i));
		} else
			ok = fuzz_is_message(root);
		if (!ok) {
			fprintf(stderr, "output line is not JSON-RPC 2.0: "
			    "%.*s\n", (int)(n > 4096 ? 4096 : n), p);
			abort();
		}
		json_doc_free(doc);
		p = nl + 1;
	}
}

/* Time out what waits, at once (every timer runs, as past its time);
 * nothing may wait after that. */
static void
fuzz_expire(void)
{
	loop_run_timers(DEADLINE_NONE - 1);
	if (tools_waiting() > 0) {
		fprintf(stderr, "%zu tool calls still wait after their "
		    "deadlines\n", tools_waiting());
		abort();
	}
}

/*
 * mcp.c keeps its state between inputs; only the protocol version changes
 * what an input does (batches), so put it back if an input changed it.
 * The first input is preceded by initialize too, as requests before it
 * are refused.
 */
static void
fuzz_reset(void)
{
	static const char	 init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,"
	    "\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
	    FUZZ_VERSION "\"}}\n";
	static bool		 done;

	if (done && strcmp(mcp_protocol_version(), FUZZ_VERSION) == 0)
		return;
	done = true;
	mcp_input(init, sizeof init - 1);
	(void)fuzz_collect();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*in = (const char *)data;
	size_t		 cut, len;

	fuzz_reset();
	fuzz_fixtures();

	/* The first byte picks where the input is cut in two. */
	cut = size > 1 ? 1 + (size_t)data[0] % size : size;
	if (cut > size)
		cut = size;
	mcp_input(in, cut);
	mcp_input(in + cut, size - cut);
	mcp_input_eof();
	loop_run_timers(now_ms());
	programs_collect();
	fuzz_expire();
	programs_collect();
	len = fuzz_collect();
	if (fuzz_show)
		(void)!write(STDERR_FILENO, fuzz_buf, len);
	fuzz_check_output(fuzz_buf, len);
	if (fuzz_strangers()) {
		fprintf(stderr, "a program was made without tmux\n");
		abort();
	}
	return (0);
}
