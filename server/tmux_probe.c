/*
 * tmux_probe.c — which tmux we run and how: the binary and socket
 * arguments every tmux command of ours starts with; its version
 * (`tmux -V`); and for --check whether a server answers on our socket.
 *
 * progmux needs tmux 3.2a or newer; a version that is is kept. At
 * start-up and for --check, before any loop runs, tmux_probe waits for
 * `tmux -V`. Until a usable version is known, each start of the control
 * client asks again, in the loop (tmux_probe_start): the output is a
 * descriptor, the process is reaped through SIGCHLD (tmux_probe_reaped,
 * from tmux_reaped), a timer bounds it at TMUX_VERSION_MS, and the
 * caller is told once how it went. tmux_run_wait, outside the loop,
 * runs one command and waits for it: `tmux list-sessions` for --check,
 * the keeper's `tmux kill-server`. The control client's process is
 * started here too (tmux_client_spawn); tmux.c speaks with it.
 *
 * A tmux named without a slash is looked for on PATH and then where
 * macOS's package managers put it (tmux_dirs): a GUI app (Claude
 * Desktop, Cursor, VS Code started from the Dock) gets launchd's PATH,
 * /usr/bin:/bin:/usr/sbin:/sbin, which has neither. Whatever fails says
 * how to install tmux with the system's own installer.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "compat.h"
#include "cspawn.h"
#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "osdep.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TMUX_VERSION_MS		5000	/* `tmux -V` answers by then */
#define TMUX_VERSION_MAX	256	/* bytes of its output kept */
#define TMUX_RUN_RECHECK_MS	10	/* tmux_run_wait: has it exited? */
#define TMUX_NOFILE_MIN		64	/* below this, tmux is not started */

static struct {
	pid_t		   pid;		/* `tmux -V`, until reaped */
	int		   fd;		/* its output, until EOF */
	int		   status;	/* its wait status */
	struct buf	   out;
	struct loop_timer *timer;	/* its deadline, in the loop */
	tmux_probe_cb	   cb;		/* in the loop: told how it went */
	char		   version[32];
	bool		   usable;	/* 3.2a or newer */
	char		 **argv;	/* tmux + socket arguments */
} tp = { .pid = -1, .fd = -1 };

const char *const tmux_dirs[] = { "/opt/homebrew/bin", "/usr/local/bin",
	"/opt/local/bin", NULL };

/* Is dir/name (dir's len bytes) an executable file? Its path in out. */
static bool
tmux_search_at(const char *dir, size_t len, const char *name, char *out,
    size_t size)
{
	struct stat	sb;

	if (len == 0)
		return (false);		/* (execvp's "." is not looked in) */
	if (snprintf(out, size, "%.*s/%s", (int)len, dir, name) >=
	    (int)size)
		return (false);
	return (stat(out, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    access(out, X_OK) == 0);
}

int
tmux_search(const char *name, const char *path, const char *const *dirs,
    char *out, size_t size)
{
	const char	*d, *e;

	for (d = path; d != NULL && *d != '\0'; d = *e != '\0' ? e + 1 : e) {
		if ((e = strchr(d, ':')) == NULL)
			e = d + strlen(d);
		if (tmux_search_at(d, (size_t)(e - d), name, out, size))
			return (0);
	}
	for (; dirs != NULL && *dirs != NULL; dirs++)
		if (tmux_search_at(*dirs, strlen(*dirs), name, out, size))
			return (0);
	return (-1);
}

/*
 * How to install tmux here: the command of the first package manager
 * found on PATH (the one this user runs), else of the first found where
 * package managers live, else a list of them.
 */
const char *
tmux_install_advice(void)
{
	static const char *const pm[][2] = {
		{ "apt-get", "apt-get install tmux" },
		{ "dnf", "dnf install tmux" },
		{ "yum", "yum install tmux" },
		{ "zypper", "zypper install tmux" },
		{ "pacman", "pacman -S tmux" },
		{ "apk", "apk add tmux" },
		{ "brew", "brew install tmux" },
		{ "port", "sudo port install tmux" },
		{ "pkg", "pkg install tmux" },
	};
	static const char *const sys[] = { "/usr/bin", "/bin", "/usr/sbin",
		"/sbin", "/opt/homebrew/bin", "/usr/local/bin", "/opt/local/bin",
		NULL };
	char	path[PATH_MAX];
	size_t	i;

	for (i = 0; i < sizeof pm / sizeof pm[0]; i++)
		if (tmux_search(pm[i][0], getenv("PATH"), NULL, path,
		    sizeof path) == 0)
			return (pm[i][1]);
	for (i = 0; i < sizeof pm / sizeof pm[0]; i++)
		if (tmux_search(pm[i][0], NULL, sys, path, sizeof path) == 0)
			return (pm[i][1]);
	if (strcmp(osdep_name(), "darwin") == 0)
		return ("brew install tmux, from https://brew.sh");
	return ("apt-get install tmux, dnf install tmux, apk add tmux, "
	    "pacman -S tmux or brew install tmux");
}

/* The binary and socket arguments, from the settings: the control
 * client's start makes them anew. */
void
tmux_argv_build(void)
{
	size_t	n = 0;

	strv_free(tp.argv);
	tp.argv = xcalloc(4, sizeof *tp.argv);
	tp.argv[n++] = xstrdup(cfg.tmux_bin);
	if (cfg.socket_path != NULL) {
		tp.argv[n++] = xstrdup("-S");
		tp.argv[n++] = xstrdup(cfg.socket_path);
	} else if (cfg.socket_name != NULL) {
		tp.argv[n++] = xstrdup("-L");
		tp.argv[n++] = xstrdup(cfg.socket_name);
	}
}

/* The tmux binary and socket arguments, for every tmux we run: the
 * control client, the reapers' own commands, --check's. */
char **
tmux_client_argv(void)
{
	if (tp.argv == NULL)
		tmux_argv_build();
	return (tp.argv);
}

/*
 * Which tmux server ours is, as the path of the socket tmux itself
 * connects to: -S's path (made absolute), else the socket $TMUX names
 * when no -L is given, else -L's name ("default" without one) in
 * ${TMUX_TMPDIR:-/tmp}/tmux-UID, that directory resolved as tmux
 * resolves it. Two progmux of one user on one server agree on it: a
 * reaper's lease is adopted only by a front whose key is its own. NULL
 * if it cannot be said.
 */
const char *
tmux_server_key(void)
{
	static char	*key;
	const char	*base, *label, *env = getenv("TMUX");
	char		 cwd[PATH_MAX], dir[PATH_MAX], *real;

	if (key != NULL)
		return (key);
	if (cfg.socket_path != NULL) {
		if (cfg.socket_path[0] == '/')
			key = xstrdup(cfg.socket_path);
		else if (getcwd(cwd, sizeof cwd) != NULL)
			xasprintf(&key, "%s/%s", cwd, cfg.socket_path);
		return (key);
	}
	if (cfg.socket_name == NULL && env != NULL && *env != '\0' &&
	    strchr(env, ',') != NULL) {
		key = xstrndup(env, strcspn(env, ","));
		return (key);
	}
	if ((base = getenv("TMUX_TMPDIR")) == NULL || *base == '\0')
		base = "/tmp";
	label = cfg.socket_name != NULL ? cfg.socket_name : "default";
	snprintf(dir, sizeof dir, "%s/tmux-%ld", base, (long)getuid());
	/* (Not cached until the server's directory is there to resolve.) */
	if ((real = realpath(dir, NULL)) == NULL)
		return (NULL);
	xasprintf(&key, "%s/%s", real, label);
	free(real);
	return (key);
}

/* Is `tmux -V` still to be reaped? */
bool
tmux_probe_child(void)
{
	return (tp.pid != -1);
}

/* tmux's version as `tmux -V` gave it, or "" before the probe. */
const char *
tmux_version(void)
{
	return (tp.version);
}

/* Is the version known, and new enough? */
bool
tmux_probe_usable(void)
{
	return (tp.usable);
}

/*
 * Spawn `tmux -V` with its output (and errors) on a pipe, through the one
 * spawn sequence: a binary that cannot be run is known at once. The
 * caller reads the pipe (tp.fd) to EOF and reaps tp.pid.
 */
static int
tmux_probe_spawn(char **cause)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	char			*argv[] = { cfg.tmux_bin, (char *)"-V", NULL };
	int			 fds[2], err;
	pid_t			 pid;

	if (compat_pipe2(fds, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		return (-1);
	}
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SEARCH;
	sp.fds[0] = SPAWN_NULL;
	sp.fds[1] = fds[1];
	sp.fds[2] = fds[1];
	sp.nfds = 3;
	pid = cspawn_start(&sp, &stage, &err);
	close(fds[1]);
	if (pid == -1 || stage != SPAWN_OK) {
		close(fds[0]);
		xasprintf(cause, "cannot run %s (%s%s): install tmux 3.2a or "
		    "newer (%s) or set PROGMUX_TMUX_BIN to its path",
		    cfg.tmux_bin, fd_strerror(err), strchr(cfg.tmux_bin, '/') ?
		    "" : "; not on PATH nor in /opt/homebrew/bin, "
		    "/usr/local/bin or /opt/local/bin", tmux_install_advice());
		return (-1);	/* a child that failed is reaped as any */
	}
	tp.pid = pid;
	tp.fd = fds[0];
	tp.status = -1;
	buf_reset(&tp.out);
	return (0);
}

/* What `tmux -V` said (and how it exited): keep the version; refuse tmux
 * older than 3.2a. */
static int
tmux_probe_parse(char **cause)
{
	char	*out, *p;
	int	 major = 0, minor = 0;

	out = xstrdup(buf_cstr(&tp.out));
	buf_reset(&tp.out);
	if (!WIFEXITED(tp.status) || WEXITSTATUS(tp.status) != 0) {
		xasprintf(cause, "cannot run %s: install tmux 3.2a or newer "
		    "(%s) or set PROGMUX_TMUX_BIN to its path", cfg.tmux_bin,
		    tmux_install_advice());
		free(out);
		return (-1);
	}
	out[strcspn(out, "\n")] = '\0';
	for (p = out; *p != '\0' && (*p < '0' || *p > '9'); p++)
		;
	if (sscanf(p, "%d.%d", &major, &minor) < 2)
		major = minor = 0;
	snprintf(tp.version, sizeof tp.version, "%.31s", p);
	/* 3.2a is the first release with what we use; "3.2" itself is not. */
	if (major < 3 || (major == 3 && minor < 2) ||
	    (major == 3 && minor == 2 && (p[3] < 'a' || p[3] > 'z'))) {
		xasprintf(cause, "%s is \"%s\"; progmux needs tmux 3.2a or "
		    "newer", cfg.tmux_bin, out);
		free(out);
		return (-1);
	}
	free(out);
	tp.usable = true;
	return (0);
}

/* End a probe under way in the loop, if any: its process, its pipe, its
 * timer; its caller is not told. */
void
tmux_probe_kill(void)
{
	if (tp.pid > 0)
		kill(tp.pid, SIGKILL);	/* reaped with the others */
	tp.pid = -1;
	if (tp.fd != -1) {
		loop_fd_del(tp.fd);
		close(tp.fd);
		tp.fd = -1;
	}
	loop_timer_clear(tp.timer);
	tp.cb = NULL;
}

/* Tell the caller how the probe went (NULL: usable), once. */
static void
tmux_probe_done(const char *cause)
{
	tmux_probe_cb	cb = tp.cb;

	tp.cb = NULL;
	loop_timer_clear(tp.timer);
	if (cb != NULL)
		cb(cause);
}

/* In the loop: once its output has closed and it has been reaped, judge. */
static void
tmux_probe_check(void)
{
	char	*cause = NULL;

	if (tp.cb == NULL || tp.fd != -1 || tp.pid != -1)
		return;
	if (tmux_probe_parse(&cause) == -1) {
		log_warn("%s", cause);
		tmux_probe_done(cause);
		free(cause);
		return;
	}
	log_info("tmux %s", tp.version);
	tmux_probe_done(NULL);
}

/* `tmux -V`'s output is readable: keep (a bounded part of) it. */
static void
tmux_probe_on_event(int fd, int fired, void *arg)
{
	char	buf[512];
	ssize_t	n;

	(void)fired;
	(void)arg;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		if (tp.out.len < TMUX_VERSION_MAX)
			buf_add(&tp.out, buf, (size_t)n);
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	loop_fd_del(tp.fd);
	close(tp.fd);
	tp.fd = -1;
	tmux_probe_check();
}

/* The probe took too long: it goes, and its caller is told why. */
static void
tmux_probe_on_timer(void *arg)
{
	tmux_probe_cb	 cb = tp.cb;
	char		*why;

	(void)arg;
	tmux_probe_kill();
	xasprintf(&why, "%s -V did not answer in %d ms", cfg.tmux_bin,
	    TMUX_VERSION_MS);
	if (cb != NULL)
		cb(why);
	free(why);
}

/*
 * Probe the version in the loop: -1 with *cause if `tmux -V` cannot be
 * run; else cb is told how it went (NULL if tmux is usable, else why
 * not) within TMUX_VERSION_MS, unless tmux_probe_kill comes first.
 */
int
tmux_probe_start(tmux_probe_cb cb, char **cause)
{
	if (tmux_probe_spawn(cause) == -1)
		return (-1);
	fd_nonblock(tp.fd, 1);
	loop_fd_add(tp.fd, LOOP_READ, tmux_probe_on_event, NULL);
	if (tp.timer == NULL)
		tp.timer = loop_timer_new(tmux_probe_on_timer, NULL);
	loop_timer_set(tp.timer, now_ms() + TMUX_VERSION_MS);
	tp.cb = cb;
	return (0);
}

/* Was pid the probe? Then it is reaped, and judged if its output has
 * closed too. */
bool
tmux_probe_reaped(pid_t pid, int status)
{
	if (pid <= 0 || pid != tp.pid)
		return (false);
	tp.pid = -1;
	tp.status = status;
	tmux_probe_check();
	return (true);
}

/* For --check and at start-up, before the loop runs: tmux's version, or
 * why it cannot be used. The one place that waits for `tmux -V`. */
int
tmux_probe(char **version, char **cause)
{
	char	buf[512];
	ssize_t	n;

	if (!tp.usable) {
		if (tmux_probe_spawn(cause) == -1)
			return (-1);
		while ((n = read(tp.fd, buf, sizeof buf)) != 0) {
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1)
				break;
			if (tp.out.len < TMUX_VERSION_MAX)
				buf_add(&tp.out, buf, (size_t)n);
		}
		close(tp.fd);
		tp.fd = -1;
		while (waitpid(tp.pid, &tp.status, 0) == -1 &&
		    errno == EINTR)
			;
		tp.pid = -1;
		if (tmux_probe_parse(cause) == -1)
			return (-1);
	}
	if (version != NULL)
		*version = xstrdup(tp.version);
	return (0);
}

/*
 * Run one tmux command on our socket and wait for it, up to wait_ms (then
 * it is killed): true if it ran and exited 0. Outside the loop only: for
 * --check, and for the keeper.
 */
bool
tmux_run_wait(const char *command, int64_t wait_ms)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	char			*argv[8], **tv = tmux_client_argv();
	size_t			 n = 0, i;
	int			 st, err;
	int64_t			 deadline = now_ms() + wait_ms;
	pid_t			 pid, got;

	for (i = 0; tv[i] != NULL; i++)
		argv[n++] = tv[i];
	argv[n++] = (char *)command;
	argv[n] = NULL;
	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SEARCH;
	sp.fds[0] = sp.fds[1] = sp.fds[2] = SPAWN_NULL;
	sp.nfds = 3;
	if ((pid = cspawn_start(&sp, &stage, &err)) == -1)
		return (false);
	while ((got = waitpid(pid, &st, WNOHANG)) != pid) {
		if (got == -1 && errno != EINTR)
			return (false);
		if (now_ms() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
				;
			return (false);
		}
		poll(NULL, 0, TMUX_RUN_RECHECK_MS);
	}
	return (stage == SPAWN_OK && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* For --check: 1 if a server answers on our socket, 0 if none does. */
int
tmux_server_running(void)
{
	return (tmux_run_wait("list-sessions", TMUX_VERSION_MS));
}

/*
 * tmux inherits our descriptor limit (main.c raised the soft one to the
 * hard one). A server started under a tiny limit cannot open its panes
 * and spins: refuse to start it at all, saying which limit to raise.
 */
int
tmux_nofile_check(char **cause)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 ||
	    rl.rlim_cur >= TMUX_NOFILE_MIN)
		return (0);
	xasprintf(cause, "the descriptor limit is too low to start tmux "
	    "(RLIMIT_NOFILE soft %llu hard %llu; progmux needs at least %d): "
	    "raise it with ulimit -n", (unsigned long long)rl.rlim_cur,
	    (unsigned long long)rl.rlim_max, TMUX_NOFILE_MIN);
	return (-1);
}

/* In the client, before its exec: die with us, and not start at all if
 * we died already. */
static int
tmux_client_hook(void *arg)
{
	pid_t	parent = *(pid_t *)arg;

	if (osdep_parent_death(SIGTERM, parent) == 0)
		return (0);
	if (errno != ENOSYS)
		return (-1);
	if (getppid() != parent) {	/* (no such signal here) */
		errno = ESRCH;
		return (-1);
	}
	return (0);
}

/*
 * Spawn the control client (the one spawn sequence: its exec failing is
 * known at once), attaching to our session (tmux_session_argv), with
 * conf as the server's options if not NULL; our ends of its stdin,
 * stdout and stderr (-1: none) into *c. The
 * client dies with us: a parent-death signal (PR_SET_PDEATHSIG) sends it
 * SIGTERM however we die (tmux then drops it and its session), and if
 * we died before the prctl took, it does not start at all. Where the
 * system has no such signal, the end of its stdin ends it: we alone hold
 * the pipe's other end. It is a session leader with no terminal: its
 * stdin is the protocol.
 */
int
tmux_client_spawn(const char *conf, struct tmux_client *c, char **cause)
{
	struct spawn		 sp;
	enum spawn_stage	 stage;
	int			 in[2], out[2], ep[2], err;
	char			*argv[24], **tv;
	size_t			 n = 0, i;
	pid_t			 parent = getpid(), pid;

	if (compat_pipe2(in, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		return (-1);
	}
	if (compat_pipe2(out, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		close(in[0]);
		close(in[1]);
		return (-1);
	}
	if (compat_pipe2(ep, O_CLOEXEC) == -1)
		ep[0] = ep[1] = -1;	/* its stderr is then nobody's */
	for (tv = tmux_client_argv(), i = 0; tv[i] != NULL; i++)
		argv[n++] = tv[i];
	if (conf != NULL) {
		argv[n++] = (char *)"-f";
		argv[n++] = (char *)conf;
	}
	argv[n++] = (char *)"-C";
	tmux_session_argv(argv, &n);
	argv[n] = NULL;

	memset(&sp, 0, sizeof sp);
	sp.argv = argv;
	sp.flags = SPAWN_SETSID | SPAWN_SEARCH;
	sp.fds[0] = out[0];
	sp.fds[1] = in[1];
	sp.fds[2] = ep[1] != -1 ? ep[1] : SPAWN_NULL;
	sp.nfds = 3;
	sp.hook = tmux_client_hook;
	sp.hook_arg = &parent;
	pid = cspawn_start(&sp, &stage, &err);
	close(out[0]);
	close(in[1]);
	if (ep[1] != -1)
		close(ep[1]);
	if (pid == -1 || stage != SPAWN_OK) {
		close(in[0]);
		close(out[1]);
		if (ep[0] != -1)
			close(ep[0]);
		if (pid == -1)
			xasprintf(cause, "fork: %s", fd_strerror(err));
		else
			xasprintf(cause, "cannot run %s: %s", cfg.tmux_bin,
			    fd_strerror(err));
		return (-1);	/* a child that failed is reaped as any */
	}
	c->pid = pid;
	c->in = in[0];
	c->out = out[1];
	c->err = ep[0];
	log_debug("control client %ld on %s", (long)pid,
	    cfg.socket_path ? cfg.socket_path : cfg.socket_name ?
	    cfg.socket_name : "the default socket");
	return (0);
}
