/*
 * client.c — a small MCP client over pipes, for tests and benchmarks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "client.h"
#include "compat.h"
#include "rand.h"
#include "jschema.h"
#include "timeutil.h"
#include "xmalloc.h"

/* Lines already read but not yet claimed. */
struct held {
	struct json_doc	*doc;
	struct held	*next;
};

/*
 * Every harness opened and not yet closed, by value: a failing test
 * jumps out of its function without pmx_close(), and what it started
 * (progmux, the private tmux server, its directory) must still go. An
 * atexit handler ends them, by PID and by the socket we made.
 */
#define PMX_LIVE_MAX	64
static struct pmx_live {
	char	sock[300];
	char	dir[256];
	pid_t	pid;
	bool	used;
} pmx_live[PMX_LIVE_MAX];
static bool	pmx_live_hooked;

/* At exit: end what every harness still open started. */
static void
pmx_live_cleanup(void)
{
	char	*argv[] = { NULL, (char *)"-S", NULL,
		    (char *)"kill-server", NULL };
	char	 cmd[600];
	int	 i, st;
	pid_t	 pid;

	argv[0] = (char *)pmx_tmux_bin();
	for (i = 0; i < PMX_LIVE_MAX; i++) {
		if (!pmx_live[i].used)
			continue;
		if (pmx_live[i].pid > 0) {
			kill(pmx_live[i].pid, SIGKILL);
			waitpid(pmx_live[i].pid, NULL, 0);
		}
		argv[2] = pmx_live[i].sock;
		if ((pid = fork()) == 0) {
			int null = open("/dev/null", O_RDWR);

			dup2(null, 1);
			dup2(null, 2);
			execvp(argv[0], argv);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, &st, 0);
		pmx_kill_by_dir(pmx_live[i].dir);
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", pmx_live[i].dir);
		if (strncmp(pmx_live[i].dir, "/tmp/progmux-test-", 18) == 0 &&
		    system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", pmx_live[i].dir);
		pmx_live[i].used = false;
	}
}

/* Note (or update) c as live; pid -1 keeps the one noted. */
static void
pmx_live_note(const struct pmx *c)
{
	int	i, free_slot = -1;

	if (!pmx_live_hooked) {
		atexit(pmx_live_cleanup);
		pmx_live_hooked = true;
	}
	for (i = 0; i < PMX_LIVE_MAX; i++) {
		if (pmx_live[i].used && strcmp(pmx_live[i].dir, c->dir) == 0)
			break;
		if (!pmx_live[i].used && free_slot == -1)
			free_slot = i;
	}
	if (i == PMX_LIVE_MAX && (i = free_slot) == -1)
		return;
	pmx_live[i].used = true;
	snprintf(pmx_live[i].sock, sizeof pmx_live[i].sock, "%s", c->sock);
	snprintf(pmx_live[i].dir, sizeof pmx_live[i].dir, "%s", c->dir);
	pmx_live[i].pid = c->pid;
}

static void
pmx_live_forget(const struct pmx *c)
{
	int	i;

	for (i = 0; i < PMX_LIVE_MAX; i++)
		if (pmx_live[i].used && strcmp(pmx_live[i].dir, c->dir) == 0)
			pmx_live[i].used = false;
}

char *
pmx_lines_file(struct pmx *c, const char *name, int n)
{
	char	*path;
	FILE	*fp;
	int	 i;

	xasprintf(&path, "%s/%s", c->dir, name);
	if ((fp = fopen(path, "w")) == NULL) {
		free(path);
		return (NULL);
	}
	for (i = 1; i <= n; i++)
		fprintf(fp, "line %03d\n", i);
	if (fclose(fp) != 0) {
		unlink(path);
		free(path);
		return (NULL);
	}
	return (path);
}

char *
pmx_read_file(const char *path, size_t *len)
{
	struct buf	b = BUF_INIT;
	char		chunk[65536];
	ssize_t		n;
	int		fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return (NULL);
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		buf_add(&b, chunk, (size_t)n);
	close(fd);
	*len = b.len;
	buf_cstr(&b);
	return (b.data);
}

/* Load the tool schemas (tests run from the repository root). */
static void
pmx_load_schemas(struct pmx *c)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[512], *text;
	size_t		 len;

	if ((d = opendir("schemas")) == NULL)
		return;
	while ((de = readdir(d)) != NULL && c->nschemas < 16) {
		if (strstr(de->d_name, ".json") == NULL)
			continue;
		snprintf(path, sizeof path, "schemas/%s", de->d_name);
		if ((text = pmx_read_file(path, &len)) == NULL)
			continue;
		c->schemas[c->nschemas] = json_parse(text, len, NULL);
		if (c->schemas[c->nschemas] != NULL)
			c->nschemas++;
		free(text);
	}
	closedir(d);
}

static const struct json *
pmx_output_schema(struct pmx *c, const char *tool)
{
	const struct json	*root, *name;
	int			 i;

	for (i = 0; i < c->nschemas; i++) {
		root = json_root(c->schemas[i]);
		name = json_get(root, "name");
		if (name != NULL && strcmp(json_str(name, NULL), tool) == 0)
			return (json_get(root, "outputSchema"));
	}
	return (NULL);
}

char *
pmx_run_capture(char **argv, int *status)
{
	struct buf	 b = BUF_INIT;
	char		 chunk[4096];
	int		 fds[2], st = 0;
	ssize_t		 n;
	pid_t		 pid;

	*status = -1;
	if (pipe(fds) == -1)
		return (NULL);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(fds[1], 1);
		dup2(null, 2);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], chunk, sizeof chunk)) > 0)
		buf_add(&b, chunk, (size_t)n);
	close(fds[0]);
	waitpid(pid, &st, 0);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	buf_cstr(&b);
	return (b.data);
}

const char *
pmx_tmux_bin(void)
{
	const char	*t = getenv("PROGMUX_TEST_TMUX");

	return (t != NULL && *t != '\0' ? t : "tmux");
}

/* tmux -S sock with the words in ap; its stdout, or NULL if it failed. */
static char *
pmx_tmux_v(const char *sock, va_list ap)
{
	char	*argv[64], *out;
	int	 n = 0, st = -1;

	argv[n++] = (char *)pmx_tmux_bin();
	argv[n++] = (char *)"-S";
	argv[n++] = (char *)sock;
	while (n < 63 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	argv[n] = NULL;
	out = pmx_run_capture(argv, &st);
	if (st != 0) {
		free(out);
		return (NULL);
	}
	return (out);
}

char *
pmx_tmux_at(const char *sock, ...)
{
	char	*out;
	va_list	 ap;

	va_start(ap, sock);
	out = pmx_tmux_v(sock, ap);
	va_end(ap);
	return (out);
}

/*
 * With PROGMUX_TEST_TMUX_VERSION set (scripts/test/test-tmux.sh sets it), is
 * what runs that version? what is the private server's #{version}, or
 * progmux's start line ("... on tmux VERSION, ...") when NULL. Says why
 * not on stderr.
 */
static bool
pmx_version_is_wanted(struct pmx *c, const char *what)
{
	const char	*want = getenv("PROGMUX_TEST_TMUX_VERSION");
	char		 needle[64];
	int64_t		 t0 = now_ms();

	if (want == NULL || *want == '\0')
		return (true);
	if (what != NULL) {
		if (strcmp(what, want) == 0)
			return (true);
		fprintf(stderr, "the tmux server is %s, not %s\n", what, want);
		return (false);
	}
	snprintf(needle, sizeof needle, " on tmux %.40s, ", want);
	while (now_ms() - t0 < 5000) {
		pmx_drain_err(c);
		if (c->errlog.len > 0 && memmem(c->errlog.data, c->errlog.len,
		    needle, strlen(needle)) != NULL)
			return (true);
		poll(NULL, 0, 10);
	}
	fprintf(stderr, "progmux did not say it runs on tmux %s: %.*s\n",
	    want, (int)c->errlog.len, c->errlog.data ? c->errlog.data : "");
	return (false);
}

static int
pmx_mkdir(struct pmx *c)
{
	memset(c, 0, sizeof *c);
	c->pid = -1;
	c->to = c->from = c->err = -1;
	snprintf(c->dir, sizeof c->dir, "/tmp/progmux-test-%ld-XXXXXX",
	    (long)getpid());
	if (mkdtemp(c->dir) == NULL)
		return (-1);
	snprintf(c->sock, sizeof c->sock, "%s/tmux.sock", c->dir);
	pmx_load_schemas(c);
	pmx_live_note(c);
	return (0);
}

int
pmx_open(struct pmx *c, const char *const *env)
{
	char	*out;

	if (pmx_mkdir(c) == -1)
		return (-1);
	/*
	 * A private server with a session of its own, no user config, and
	 * no shell: a login shell would run the person's profile.
	 */
	out = pmx_tmux(c, "-f", "/dev/null", "new-session", "-d", "-s",
	    "base", "-x", "80", "-y", "24", "cat", "-", NULL);
	if (out == NULL) {
		pmx_close(c);
		return (-1);
	}
	free(out);
	c->own_tmux = true;
	/* It is the version under test. */
	out = pmx_tmux(c, "display-message", "-p", "#{version}", NULL);
	if (out != NULL)
		out[strcspn(out, "\n")] = '\0';
	if (out == NULL || !pmx_version_is_wanted(c, out)) {
		free(out);
		pmx_close(c);
		return (-1);
	}
	free(out);
	if (pmx_spawn(c, env, true) == -1) {
		pmx_close(c);
		return (-1);
	}
	return (0);
}

int
pmx_prepare(struct pmx *c)
{
	return (pmx_mkdir(c));
}

int
pmx_open_bare(struct pmx *c, const char *const *env)
{
	if (pmx_mkdir(c) == -1)
		return (-1);
	return (pmx_spawn(c, env, false));
}

int
pmx_open_no_tmux(struct pmx *c, const char *const *env)
{
	if (pmx_mkdir(c) == -1)
		return (-1);
	return (pmx_spawn(c, env, true));
}

static struct rlimit	pmx_nofile;

void
pmx_set_nofile(unsigned long soft, unsigned long hard)
{
	pmx_nofile.rlim_cur = soft;
	pmx_nofile.rlim_max = hard;
}

/* Do pids a and b run the same command line? */
static bool
pmx_same_cmdline(pid_t a, pid_t b)
{
	char	ca[4096], cb[4096];
	ssize_t	la, lb;

	la = pmx_cmdline(a, ca, sizeof ca);
	lb = pmx_cmdline(b, cb, sizeof cb);
	return (la > 0 && la == lb && memcmp(ca, cb, (size_t)la) == 0);
}

/*
 * The front: progmux forks at start-up, and the process it started (the
 * keeper) waits for its child, which does the work. Waited for, bounded,
 * until the child is there or progmux has exited (a settings error). A
 * progmux without a keeper (an older build, to see a test fail on it)
 * has a first child of another kind: it is its own front.
 */
static pid_t
pmx_find_front(pid_t keeper)
{
	int64_t		deadline = now_ms() + 5000;
	siginfo_t	si;
	pid_t		kid;

	do {
		if (pmx_children(keeper, &kid, 1) == 1) {
			/* (Until it has exec'd, a child looks the same.) */
			poll(NULL, 0, 5);
			return (pmx_same_cmdline(keeper, kid) ? kid : keeper);
		}
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)keeper, &si, WEXITED | WNOHANG |
		    WNOWAIT) == 0 && si.si_pid == keeper)
			return (-1);
		poll(NULL, 0, 2);
	} while (now_ms() < deadline);
	return (-1);
}

void
pmx_exec_progmux(const struct pmx *c, const char *const *env)
{
	const char	*bin;

	unsetenv("TMUX");
	unsetenv("TMUX_PANE");
	unsetenv("PROGMUX_SOCKET_NAME");
	unsetenv("LIBTMUX_SOCKET_NAME");
	unsetenv("LIBTMUX_SOCKET_PATH");
	setenv("PROGMUX_SOCKET_PATH", c->sock, 1);
	setenv("TMPDIR", c->dir, 1);
	/* Its attach lock too goes with the directory. */
	setenv("TMUX_TMPDIR", c->dir, 1);
	/* The tmux under test, unless the test names its own. */
	setenv("PROGMUX_TMUX_BIN", pmx_tmux_bin(), 1);
	/* Programs end with progmux, as the suites expect, unless a test
	 * gives them a lease (test_lease, test_death). */
	setenv("PROGMUX_ORPHAN_GRACE_MS", "0", 1);
	for (; env != NULL && *env != NULL; env++)
		putenv((char *)*env);
	/* PROGMUX_BIN picks a build (make test SAN=1 sets it); it is argv[0]
	 * too, as an MCP client runs its command. */
	bin = getenv("PROGMUX_BIN") ? getenv("PROGMUX_BIN") : "build/progmux";
	execl(bin, bin, (char *)NULL);
	_exit(127);
}

int
pmx_spawn(struct pmx *c, const char *const *env, bool initialize)
{
	int		 in[2], out[2], err[2];
	struct json_doc	*d;
	const char	*const *e;
	bool		 own_bin = false;
	int64_t		 id;

	for (e = env; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "PROGMUX_TMUX_BIN=", 17) == 0)
			own_bin = true;
	if (compat_pipe2(in, O_CLOEXEC) == -1 ||
	    compat_pipe2(out, O_CLOEXEC) == -1 ||
	    compat_pipe2(err, O_CLOEXEC) == -1)
		return (-1);
	if ((c->pid = fork()) == 0) {
		if (pmx_nofile.rlim_max != 0 &&
		    setrlimit(RLIMIT_NOFILE, &pmx_nofile) == -1)
			_exit(126);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		pmx_exec_progmux(c, env);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	c->front = pmx_find_front(c->pid);
	pmx_live_note(c);
	c->to = in[1];
	c->from = out[0];
	c->err = err[0];
	fcntl(c->err, F_SETFL, O_NONBLOCK);
	fcntl(c->from, F_SETFL, O_NONBLOCK);
	buf_reset(&c->rbuf);
	if (!initialize)
		return (0);
	id = pmx_send(c, "initialize", "{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"progmux-tests\","
	    "\"version\":\"1\"}}");
	if ((d = pmx_wait(c, id, 10000)) == NULL)
		return (-1);
	json_doc_free(d);
	pmx_send_raw(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}", 54);
	/*
	 * progmux runs the tmux under test, unless the test chose one, or
	 * gave it a hard descriptor limit too low to run tmux at all.
	 */
	if (!own_bin && !(pmx_nofile.rlim_max != 0 &&
	    pmx_nofile.rlim_max < 64) && !pmx_version_is_wanted(c, NULL))
		return (-1);
	return (0);
}

void
pmx_drain_err(struct pmx *c)
{
	char	chunk[4096];
	ssize_t	n;

	if (c->err == -1)
		return;
	while ((n = read(c->err, chunk, sizeof chunk)) > 0)
		buf_add(&c->errlog, chunk, (size_t)n);
}

int
pmx_wait_exit(struct pmx *c, int ms)
{
	int64_t	deadline = now_ms() + ms;
	int	st;
	pid_t	r;

	if (c->pid == -1)
		return (-1);
	while ((r = waitpid(c->pid, &st, WNOHANG)) == 0 &&
	    now_ms() < deadline) {
		pmx_drain_err(c);
		poll(NULL, 0, 5);
	}
	if (r != c->pid)
		return (-1);
	c->pid = -1;
	return (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

void
pmx_kill_front(struct pmx *c)
{
	struct held	*h;

	/* (Only while it is its keeper's child: a front reaped already may
	 * have left its pid to another process.) */
	if (c->front > 0 && c->pid != -1 && pmx_ppid(c->front) == c->pid)
		kill(c->front, SIGKILL);
	if (c->pid != -1)
		waitpid(c->pid, NULL, 0);
	c->pid = -1;
	c->front = -1;
	pmx_drain_err(c);
	if (c->to != -1)
		close(c->to);
	if (c->from != -1)
		close(c->from);
	if (c->err != -1)
		close(c->err);
	c->to = c->from = c->err = -1;
	buf_reset(&c->rbuf);
	while ((h = c->held) != NULL) {
		c->held = h->next;
		json_doc_free(h->doc);
		free(h);
	}
}

int
pmx_lease_sockets(const struct pmx *c)
{
	char		 dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int		 n = 0;

	snprintf(dir, sizeof dir, "%s/progmux.lease.%lu", c->dir,
	    (unsigned long)geteuid());
	if ((d = opendir(dir)) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			n++;
	}
	closedir(d);
	return (n);
}

int
pmx_wait_lease_sockets(const struct pmx *c, int n, int ms)
{
	int64_t	deadline = now_ms() + ms;
	int	got;

	while ((got = pmx_lease_sockets(c)) < n && now_ms() < deadline)
		poll(NULL, 0, 5);
	return (got);
}

int
pmx_twin(struct pmx *twin, const struct pmx *c, const char *const *env,
    bool initialize)
{
	memset(twin, 0, sizeof *twin);
	twin->pid = twin->front = -1;
	twin->to = twin->from = twin->err = -1;
	memcpy(twin->dir, c->dir, sizeof twin->dir);
	memcpy(twin->sock, c->sock, sizeof twin->sock);
	pmx_load_schemas(twin);
	return (pmx_spawn(twin, env, initialize));
}

int
pmx_twin_close(struct pmx *twin)
{
	int	st = 0, i;

	if (twin->to != -1)
		close(twin->to);
	twin->to = -1;
	if (twin->pid != -1 && (st = pmx_wait_exit(twin, 5000)) == -1) {
		if (twin->front > 0)
			kill(twin->front, SIGKILL);
		kill(twin->pid, SIGKILL);
		waitpid(twin->pid, NULL, 0);
		twin->pid = -1;
	}
	pmx_kill_front(twin);
	for (i = 0; i < twin->nschemas; i++)
		json_doc_free(twin->schemas[i]);
	twin->nschemas = 0;
	buf_free(&twin->rbuf);
	buf_free(&twin->errlog);
	return (st);
}

int
pmx_close(struct pmx *c)
{
	char	*out, cmd[600];
	int	 st = 0, i;

	if (c->to != -1)
		close(c->to);
	c->to = -1;
	if (c->pid != -1 && (st = pmx_wait_exit(c, 5000)) == -1) {
		if (c->front > 0)
			kill(c->front, SIGKILL);
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
	}
	pmx_drain_err(c);
	if (getenv("PMX_SHOW_STDERR") != NULL && c->errlog.len > 0)
		fprintf(stderr, "--- progmux stderr ---\n%.*s\n",
		    (int)c->errlog.len, c->errlog.data);
	if (c->from != -1)
		close(c->from);
	if (c->err != -1)
		close(c->err);
	c->from = c->err = -1;
	/* Until the server is gone (bounded): a client attaching just then
	 * can outlive one kill-server. */
	for (i = 0; i < 100; i++) {
		if ((out = pmx_tmux(c, "kill-server", NULL)) != NULL)
			free(out);
		if ((out = pmx_tmux(c, "list-sessions", NULL)) == NULL)
			break;
		free(out);
		usleep(20000);
	}
	pmx_kill_by_dir(c->dir);
	while (c->held != NULL) {
		struct held *h = c->held;

		c->held = h->next;
		json_doc_free(h->doc);
		free(h);
	}
	for (i = 0; i < c->nschemas; i++)
		json_doc_free(c->schemas[i]);
	c->nschemas = 0;
	buf_free(&c->rbuf);
	buf_free(&c->errlog);
	if (c->dir[0] != '\0' && strncmp(c->dir, "/tmp/progmux-test-", 18) ==
	    0) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", c->dir);
	}
	pmx_live_forget(c);
	return (st);
}

void
pmx_send_raw(struct pmx *c, const char *line, size_t len)
{
	struct buf	b = BUF_INIT;
	size_t		off = 0;
	ssize_t		n;
	struct pollfd	pfd;

	buf_add(&b, line, len);
	buf_addc(&b, '\n');
	while (off < b.len) {
		n = write(c->to, b.data + off, b.len - off);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				pfd = (struct pollfd){ c->to, POLLOUT, 0 };
				poll(&pfd, 1, 100);
				continue;
			}
			break;
		}
		off += (size_t)n;
	}
	buf_free(&b);
}

int64_t
pmx_send(struct pmx *c, const char *method, const char *params)
{
	struct buf	b = BUF_INIT;
	int64_t		id = ++c->next_id;

	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\"",
	    (long long)id, method);
	if (params != NULL)
		buf_printf(&b, ",\"params\":%s", params);
	buf_addc(&b, '}');
	pmx_send_raw(c, b.data, b.len);
	buf_free(&b);
	return (id);
}


/* Read one line (up to ms). */
struct json_doc *
pmx_read_line(struct pmx *c, int ms)
{
	int64_t		 deadline = now_ms() + ms;
	struct pollfd	 pfd[2];
	struct timespec	 ts;
	char		*nl, *cause = NULL;
	struct json_doc	*d;
	ssize_t		 n;
	size_t		 len;
	int		 left, npfd;

	for (;;) {
		if ((nl = memchr(c->rbuf.data ? c->rbuf.data : "", '\n',
		    c->rbuf.len)) != NULL) {
			len = (size_t)(nl - c->rbuf.data);
			c->line_len = len;
			d = json_parse(c->rbuf.data, len, &cause);
			if (d == NULL) {
				fprintf(stderr, "progmux wrote a line that is "
				    "not JSON (%s): %.200s\n", cause,
				    c->rbuf.data);
				free(cause);
			}
			buf_drain(&c->rbuf, len + 1);
			return (d);
		}
		left = (int)(deadline - now_ms());
		if (left <= 0)
			return (NULL);
		/* Wait on stdout and stderr both: stderr must never fill. */
		pfd[0] = (struct pollfd){ c->from, POLLIN, 0 };
		npfd = 1;
		if (c->err != -1)
			pfd[npfd++] = (struct pollfd){ c->err, POLLIN, 0 };
		if (poll(pfd, npfd, left) <= 0)
			continue;
		if (npfd == 2 && pfd[1].revents != 0)
			pmx_drain_err(c);
		if (pfd[0].revents == 0)
			continue;
		buf_reserve(&c->rbuf, 1 << 20);
		n = read(c->from, c->rbuf.data + c->rbuf.len, 1 << 20);
		c->read_us = now_us();
		clock_gettime(CLOCK_REALTIME, &ts);
		c->read_real_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		if (n == 0)
			return (NULL);
		if (n > 0)
			c->rbuf.len += (size_t)n;
	}
}

struct json_doc *
pmx_next(struct pmx *c, int ms)
{
	struct held	*h;
	struct json_doc	*d;

	if ((h = c->held) != NULL) {
		c->held = h->next;
		d = h->doc;
		free(h);
		return (d);
	}
	return (pmx_read_line(c, ms));
}

static bool
id_is(const struct json_doc *d, int64_t id)
{
	const struct json	*v = json_get(json_root(d), "id");

	return (v != NULL && json_type(v) == JSON_NUMBER && json_is_int(v) &&
	    json_int(v) == id);
}

struct json_doc *
pmx_wait(struct pmx *c, int64_t id, int ms)
{
	int64_t		  deadline = now_ms() + ms;
	struct held	**hp, *h;
	struct json_doc	 *d;
	int		  left;

	for (hp = &c->held; *hp != NULL; hp = &(*hp)->next)
		if (id_is((*hp)->doc, id)) {
			h = *hp;
			*hp = h->next;
			d = h->doc;
			free(h);
			return (d);
		}
	while ((left = (int)(deadline - now_ms())) > 0) {
		if ((d = pmx_read_line(c, left)) == NULL)
			return (NULL);
		if (id_is(d, id))
			return (d);
		h = xcalloc(1, sizeof *h);
		h->doc = d;
		for (hp = &c->held; *hp != NULL; hp = &(*hp)->next)
			;
		*hp = h;
	}
	return (NULL);
}

const struct json *
pmx_result(const struct json_doc *d)
{
	return (d ? json_get(json_root(d), "result") : NULL);
}

const struct json *
pmx_sc(const struct json_doc *d)
{
	const struct json	*r = pmx_result(d);

	return (r ? json_get(r, "structuredContent") : NULL);
}

bool
pmx_is_error(const struct json_doc *d)
{
	const struct json	*r = pmx_result(d), *e;

	if (r == NULL)
		return (true);
	e = json_get(r, "isError");
	return (e != NULL && json_type(e) == JSON_BOOL && json_bool(e));
}

const char *
pmx_text(const struct json_doc *d)
{
	const struct json	*r = pmx_result(d), *c, *t;

	if (r == NULL || (c = json_get(r, "content")) == NULL ||
	    json_len(c) == 0 || (t = json_get(json_at(c, 0), "text")) == NULL)
		return ("");
	return (json_str(t, NULL));
}

struct json_doc *
pmx_call(struct pmx *c, const char *tool, const char *args, int ms)
{
	struct buf		 b = BUF_INIT;
	struct json_doc		*d;
	const struct json	*schema, *sc;
	char			*cause = NULL;
	int64_t			 id;

	buf_printf(&b, "{\"name\":\"%s\",\"arguments\":%s}", tool,
	    args ? args : "{}");
	id = pmx_send(c, "tools/call", buf_cstr(&b));
	buf_free(&b);
	if ((d = pmx_wait(c, id, ms)) == NULL)
		return (NULL);
	if (pmx_result(d) != NULL && !pmx_is_error(d) &&
	    (schema = pmx_output_schema(c, tool)) != NULL) {
		sc = pmx_sc(d);
		if (sc == NULL || jschema_validate(schema, sc, &cause) == -1) {
			fprintf(stderr, "%s result breaks its outputSchema: "
			    "%s\n", tool, sc ? cause : "no structuredContent");
			free(cause);
			json_doc_free(d);
			return (NULL);
		}
	}
	return (d);
}

char *
pmx_start_program(struct pmx *c, const char *args, char **pane)
{
	struct json_doc		*d;
	const struct json	*sc;
	char			*id = NULL;

	if ((d = pmx_call(c, "start_program", args, 15000)) == NULL)
		return (NULL);
	if (pmx_is_error(d)) {
		fprintf(stderr, "start_program %s: %s\n", args, pmx_text(d));
	} else if ((sc = pmx_sc(d)) != NULL) {
		id = xstrdup(json_str(json_get(sc, "programId"), NULL));
		if (pane != NULL)
			*pane = xstrdup(json_str(json_get(sc, "paneId"),
			    NULL));
	}
	json_doc_free(d);
	return (id);
}

static char	*pmx_read_loop(struct pmx *, const char *, int, const char *,
		    struct json_doc **);

char *
pmx_read_all(struct pmx *c, const char *id, int ms, struct json_doc **last)
{
	return (pmx_read_loop(c, id, ms, NULL, last));
}

char *
pmx_read_until(struct pmx *c, const char *id, const char *needle, int ms)
{
	char	*text = pmx_read_loop(c, id, ms, needle, NULL);

	if (strstr(text, needle) == NULL) {
		free(text);
		return (NULL);
	}
	return (text);
}

/* Read from cursor 0 until the end, needle (if not NULL) or ms. */
static char *
pmx_read_loop(struct pmx *c, const char *id, int ms, const char *needle,
    struct json_doc **last)
{
	struct buf		 text = BUF_INIT, args = BUF_INIT;
	struct json_doc		*d = NULL;
	const struct json	*sc;
	int64_t			 cursor = 0, deadline = now_ms() + ms;
	const char		*t;
	size_t			 len;

	buf_cstr(&text);
	while (now_ms() < deadline) {
		json_doc_free(d);
		buf_reset(&args);
		buf_printf(&args, "{\"programId\":\"%s\",\"cursor\":%lld,"
		    "\"timeoutMs\":5000}", id, (long long)cursor);
		d = pmx_call(c, "read_program", buf_cstr(&args), 15000);
		if (d == NULL || pmx_is_error(d) || (sc = pmx_sc(d)) == NULL)
			break;
		t = json_str(json_get(sc, "text"), &len);
		buf_add(&text, t, len);
		cursor = json_int(json_get(sc, "cursor"));
		if (json_bool(json_get(sc, "ended")))
			break;
		if (needle != NULL && strstr(buf_cstr(&text), needle) != NULL)
			break;
	}
	buf_free(&args);
	if (last != NULL)
		*last = d;
	else
		json_doc_free(d);
	buf_cstr(&text);
	return (text.data);
}

char *
pmx_jstr(const char *s)
{
	struct buf	b = BUF_INIT;

	json_put_string(&b, s, strlen(s));
	buf_cstr(&b);
	return (b.data);
}

bool
pmx_has_line(const char *text, const char *line)
{
	size_t		 n = strlen(line);
	const char	*p;

	for (p = text; (p = strstr(p, line)) != NULL; p += n)
		if ((p == text || p[-1] == '\n') &&
		    (p[n] == '\n' || p[n] == '\0'))
			return (true);
	return (false);
}

bool
pmx_wait_pane_gone(struct pmx *c, const char *pane, int ms)
{
	int64_t	 t0 = now_ms();
	char	*out;
	bool	 there;

	for (;;) {
		out = pmx_tmux(c, "list-panes", "-a", "-F", "#{pane_id}",
		    NULL);
		there = out != NULL && pmx_has_line(out, pane);
		free(out);
		if (!there)
			return (true);
		if (now_ms() - t0 > ms)
			return (false);
		usleep(10000);
	}
}

char *
pmx_git_repo(struct pmx *c)
{
	static const char script[] =
	    "set -e; cd \"$1\"; git init -q repo; cd repo\n"
	    "for i in 1 2 3 4 5 6; do\n"
	    "  for f in a b c d; do seq 1 $((i * 7)) > \"$f$i.txt\"; done\n"
	    "  git add .\n"
	    "  git -c user.name=T -c user.email=t@example.org commit -q "
	    "-m \"commit $i with a longer subject line\"\n"
	    "done\n";
	char	*argv[] = { "sh", "-c", (char *)script, "sh", NULL, NULL };
	char	*path;
	int	 st;

	argv[4] = c->dir;
	free(pmx_run_capture(argv, &st));
	if (st != 0)
		return (NULL);
	xasprintf(&path, "%s/repo", c->dir);
	return (path);
}

char *
pmx_first_err_line(struct pmx *c, int ms)
{
	int64_t	 deadline = now_ms() + ms;
	char	*nl;

	for (;;) {
		pmx_drain_err(c);
		if (c->errlog.len > 0 && (nl = memchr(c->errlog.data, '\n',
		    c->errlog.len)) != NULL)
			return (xstrndup(c->errlog.data,
			    (size_t)(nl - c->errlog.data)));
		if (now_ms() >= deadline)
			return (NULL);
		usleep(10000);
	}
}

char *
pmx_start_field(struct pmx *c, const char *key, int ms)
{
	char	*line, *p, *v = NULL, pat[128];

	if ((line = pmx_first_err_line(c, ms)) == NULL)
		return (NULL);
	snprintf(pat, sizeof pat, ", %s ", key);
	if ((p = strstr(line, pat)) != NULL) {
		p += strlen(pat);
		v = xstrndup(p, strcspn(p, ","));
	}
	free(line);
	return (v);
}

/* The generator's state; xorshift never leaves 0, so 0 is not used. */
static uint64_t	pmx_rand_state = 88172645463325252ULL;

void
pmx_srand(uint64_t seed)
{
	pmx_rand_state = seed != 0 ? seed : 88172645463325252ULL;
}

uint64_t
pmx_rand(void)
{
	return (test_xorshift(&pmx_rand_state));
}

uint64_t
pmx_seed(void)
{
	const char	*v = getenv("PMX_SEED");

	if (v != NULL && *v != '\0')
		return (strtoull(v, NULL, 0));
	return ((uint64_t)now_us() ^ ((uint64_t)getpid() << 32));
}
