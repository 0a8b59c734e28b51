/*
 * tmux.c — one persistent control-mode client to the tmux server.
 *
 * Starting a tmux client process costs 10-40 ms; a command over a control
 * client about 0.1 ms. So the front keeps one `tmux -C` client, attached
 * to its own session (created if missing, with the server if need be), and
 * sends every command over it, one command per line. tmux answers each in
 * order with a %begin ... %end (or %error) block whose flags say it came
 * from this client; the callbacks queued here are matched in order. Output
 * notifications are turned off (refresh-client -f no-output): text comes
 * through pipe-pane, not here.
 *
 * Client text never reaches this parser unquoted: tmux_quote() makes one
 * word of anything, and the values in commands are ours (pane ids that
 * passed ^%\d+$, numbers, fixed paths).
 *
 * If the client exits (the server was killed, the session removed), every
 * queued command fails and the next command starts a new client.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TMUX_EXITING	"progmux is exiting"

struct tmux_cmd {
	tmux_cb		 cb;
	void		*arg;
	char		*line;		/* kept until written */
	struct tmux_cmd	*next;
};

static struct {
	pid_t		 pid;
	int		 in;		/* we read tmux's stdout */
	int		 out;		/* we write tmux's stdin */
	struct buf	 rbuf;
	struct buf	 wbuf;
	struct tmux_cmd	*head, *tail;	/* awaiting their blocks */
	bool		 in_block;
	unsigned long	 block_time;	/* its %begin's time and number: only */
	unsigned long	 block_num;	/* the %end or %error with both ends it */
	bool		 ours;		/* the block answers our command */
	struct buf	 block;
	bool		 alive;
	bool		 ready;		/* attached and answering: commands go */
	bool		 probing;	/* attached; the probe is out */
	int64_t		 attach_deadline;
	int		 attach_tries;
	int		 lock_fd;	/* held while attaching, or -1 */
	bool		 locking;	/* waiting for lock_fd's lock */
	int64_t		 lock_deadline;	/* then going without it */
	char		*idle_pane;	/* our own idle window's pane */
	char		*conf;		/* robust mode: the server's options */
	bool		 closing;	/* we end the client ourselves */
	unsigned	 gen;		/* bumped when a client dies */
	char		*failure;	/* why it is not alive */
	char		 version[32];
	bool		 version_ok;	/* 3.2a or newer */
	char		**argv;		/* tmux + socket arguments */
} tm = { .pid = -1, .in = -1, .out = -1, .lock_fd = -1 };

#define TMUX_LOCK_WAIT_MS	3000
#define TMUX_LOCK_RETRY_MS	10	/* how often the loop tries it */
#define TMUX_NOFILE_MIN		64	/* below this, tmux is not started */
#define TMUX_ATTACH_MS		2000	/* attached and answering by then */
#define TMUX_ATTACH_TRIES	3
#define TMUX_PROBE		"refresh-client -f no-output,ignore-size"

/*
 * tmux 3.3a (and later, up to at least 3.5a) can crash when a
 * notification reaches a control client still identifying itself, which
 * happens when two attach at the same moment. Our own instances take
 * turns: one lock per user, held from spawning the client until it is
 * attached. A private (robust) server needs none. Failing to lock is not
 * fatal; it only loses the protection.
 *
 * The lock lives where only the user can write: tmux's own directory
 * (${TMUX_TMPDIR:-/tmp}/tmux-UID, made 0700 as tmux makes it). A name
 * that is not a regular file of ours is not used. A lock held by another
 * is not waited for here: the loop retries it (tmux_lock_retry) until
 * TMUX_LOCK_WAIT_MS have passed, and answers other requests meanwhile.
 */
static char *
tmux_lock_path(void)
{
	const char	*base = getenv("TMUX_TMPDIR");
	struct stat	 sb;
	char		*dir, *path;
	uid_t		 uid = getuid();

	if (base == NULL || *base == '\0')
		base = "/tmp";
	xasprintf(&dir, "%s/tmux-%u", base, (unsigned)uid);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		log_warn("cannot make %s: %s; attaching without the lock", dir,
		    strerror(errno));
		free(dir);
		return (NULL);
	}
	if (lstat(dir, &sb) == -1 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != uid || (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		log_warn("%s is not a private directory of ours; attaching "
		    "without the lock", dir);
		free(dir);
		return (NULL);
	}
	xasprintf(&path, "%s/progmux-attach.lock", dir);
	free(dir);
	return (path);
}

/* Take the attach lock if we can; true if another holds it (wait). */
static bool
tmux_lock_attach(void)
{
	struct stat	 sb;
	char		*path;

	if (cfg.robust || tm.lock_fd != -1)
		return (false);
	if ((path = tmux_lock_path()) == NULL)
		return (false);
	tm.lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK, 0600);
	if (tm.lock_fd == -1) {
		log_warn("attach lock %s: %s; attaching without it", path,
		    errno == ELOOP ? "a symbolic link, not followed" :
		    fd_strerror(errno));
		free(path);
		return (false);
	}
	if (fstat(tm.lock_fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != getuid()) {
		log_warn("attach lock %s is not a regular file of ours; "
		    "attaching without it", path);
		close(tm.lock_fd);
		tm.lock_fd = -1;
		free(path);
		return (false);
	}
	free(path);
	if (flock(tm.lock_fd, LOCK_EX | LOCK_NB) == 0)
		return (false);
	if (errno != EWOULDBLOCK) {
		close(tm.lock_fd);
		tm.lock_fd = -1;
		return (false);
	}
	tm.lock_deadline = now_ms() + TMUX_LOCK_WAIT_MS;
	return (true);
}

static void
tmux_unlock_attach(void)
{
	tm.locking = false;
	if (tm.lock_fd != -1) {
		close(tm.lock_fd);	/* releases the lock */
		tm.lock_fd = -1;
	}
}

/* Bumped whenever a control client goes: pane ids from before may name
 * other panes now (a new server numbers from %0 again). */
unsigned
tmux_generation(void)
{
	return (tm.gen);
}

const char *
tmux_version(void)
{
	return (tm.version);
}

/* Nothing queued or waiting for its answer (or no client to ask). */
bool
tmux_idle(void)
{
	return (!tm.alive || tm.locking || (tm.head == NULL &&
	    tm.wbuf.len == 0));
}

bool
tmux_alive(void)
{
	return (tm.alive);
}

int
tmux_fd_in(void)
{
	return (tm.in);
}

int
tmux_fd_out(void)
{
	return (tm.wbuf.len > 0 && (tm.ready || tm.probing) ? tm.out : -1);
}

static void	tmux_dead(const char *);

/* Is pid our own idle process (progmux-reaper --idle OURPID)? */
static bool
tmux_is_our_idle(long pid)
{
	char	 path[64], cmd[4096], want[4096];
	ssize_t	 n;
	int	 fd, wn;

	snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (false);
	n = read(fd, cmd, sizeof cmd);
	close(fd);
	wn = snprintf(want, sizeof want, "%s%c--idle%c%ld%c", cfg.reaper_path,
	    '\0', '\0', (long)getpid(), '\0');
	return (wn > 0 && (size_t)wn < sizeof want && n == wn &&
	    memcmp(cmd, want, (size_t)n) == 0);
}

/*
 * The session's panes: the one running our idle process is ours (a
 * session we made). It closes when it exits, even if the person's
 * configuration says remain-on-exit; we remove it ourselves at exit.
 */
static void
tmux_found_panes(void *arg, bool ok, const char *out, size_t len)
{
	struct buf	 cmd = BUF_INIT;
	char		*text, *line, *save, id[32];
	long		 pid;

	(void)arg;
	if (!ok || tm.idle_pane != NULL)
		return;
	text = xstrndup(out, len);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%%%30[0-9] %ld", id + 1, &pid) != 2 ||
		    !tmux_is_our_idle(pid))
			continue;
		id[0] = '%';
		tm.idle_pane = xstrdup(id);
		buf_printf(&cmd, "set-option -p -t %s remain-on-exit off", id);
		tmux_command(buf_cstr(&cmd), NULL, NULL);
		buf_free(&cmd);
		break;
	}
	free(text);
}

/*
 * At exit (desktop mode): remove our idle window. If our programs' panes
 * are gone too and no one else's window is in it, the session we made
 * goes, and tmux exits if it was the last: we leave the server as we
 * found it. A session we only attached to has no idle pane of ours.
 */
void
tmux_release(void)
{
	struct buf	cmd = BUF_INIT;

	if (!tm.alive || !tm.ready || tm.idle_pane == NULL)
		return;
	tm.closing = true;
	buf_printf(&cmd, "kill-pane -t %s", tm.idle_pane);
	tmux_command(buf_cstr(&cmd), NULL, NULL);
	buf_free(&cmd);
}

/* The probe was answered: write every command queued meanwhile. */
static void
tmux_attached(void)
{
	struct tmux_cmd	*c;

	tm.probing = false;
	tm.ready = true;
	tm.attach_tries = 0;
	tmux_unlock_attach();
	for (c = tm.head; c != NULL; c = c->next) {
		if (c->line == NULL)
			continue;
		buf_adds(&tm.wbuf, c->line);
		buf_addc(&tm.wbuf, '\n');
		free(c->line);
		c->line = NULL;
	}
	tmux_on_writable();
	if (tm.idle_pane == NULL) {
		struct buf	cmd = BUF_INIT, t = BUF_INIT;

		buf_printf(&t, "=%s", cfg.session);
		buf_adds(&cmd, "list-panes -s -t ");
		tmux_quote(&cmd, buf_cstr(&t));
		buf_adds(&cmd, " -F '#{pane_id} #{pane_pid}'");
		tmux_command(buf_cstr(&cmd), tmux_found_panes, NULL);
		buf_free(&cmd);
		buf_free(&t);
	}
}

/* When the attach must be done by, or the lock tried again (for poll's
 * timeout). */
int64_t
tmux_deadline(void)
{
	int64_t	retry;

	if (tm.alive && tm.locking) {
		retry = now_ms() + TMUX_LOCK_RETRY_MS;
		return (retry < tm.lock_deadline ? retry : tm.lock_deadline);
	}
	return (tm.alive && !tm.ready ? tm.attach_deadline : DEADLINE_NONE);
}

static int	tmux_spawn(char **);

/*
 * Waiting for the attach lock: try it again; once it is ours, or the
 * wait is over, start the client (the queued commands go once it is
 * attached).
 */
static void
tmux_lock_retry(void)
{
	char	*cause = NULL;

	if (flock(tm.lock_fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EWOULDBLOCK && now_ms() < tm.lock_deadline)
			return;
		log_warn("the attach lock stayed held for %d ms; attaching "
		    "without it", TMUX_LOCK_WAIT_MS);
		tmux_unlock_attach();
	}
	tm.locking = false;
	if (tmux_spawn(&cause) == -1) {
		tmux_dead(cause);
		free(cause);
	}
}

/*
 * A client that is not attached and answering in time is stuck (tmux can
 * leave one so when clients attach at once): start another, keeping the
 * queued commands, none of which was written. After a few tries, give up
 * and fail them.
 */
void
tmux_check_attach(void)
{
	char	*cause = NULL;

	if (tm.alive && tm.locking) {
		tmux_lock_retry();
		return;
	}
	if (!tm.alive || tm.ready || now_ms() < tm.attach_deadline)
		return;
	log_warn("tmux control client %ld did not attach in %d ms%s",
	    (long)tm.pid, TMUX_ATTACH_MS, tm.attach_tries + 1 <
	    TMUX_ATTACH_TRIES ? "; starting another" : "");
	if (++tm.attach_tries >= TMUX_ATTACH_TRIES) {
		tm.attach_tries = 0;
		tmux_dead("it did not attach to the tmux server");
		return;
	}
	close(tm.in);
	close(tm.out);
	tm.in = tm.out = -1;
	if (tm.pid > 0)
		kill(tm.pid, SIGKILL);	/* reaped with the others */
	tm.pid = -1;
	tm.alive = false;
	tm.gen++;
	tmux_unlock_attach();
	if (tmux_start(&cause) == -1) {
		tm.attach_tries = 0;
		tm.alive = true;	/* so that tmux_dead fails the queue */
		tmux_dead(cause);
		free(cause);
	}
}

char **
tmux_client_argv(void)
{
	return (tm.argv);
}

/* Quote one word for tmux's command parser. */
void
tmux_quote(struct buf *b, const char *s)
{
	const char	*p;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
	    "opqrstuvwxyz0123456789%@=:/._,+-") == strlen(s)) {
		buf_adds(b, s);
		return;
	}
	if (strchr(s, '\'') == NULL && strpbrk(s, "\n\r") == NULL) {
		buf_addc(b, '\'');
		buf_adds(b, s);
		buf_addc(b, '\'');
		return;
	}
	buf_addc(b, '"');
	for (p = s; *p != '\0'; p++) {
		if (*p == '\n')
			buf_adds(b, "\\n");
		else if (*p == '\r')
			buf_adds(b, "\\r");
		else {
			if (strchr("\"\\$~#", *p) != NULL)
				buf_addc(b, '\\');
			buf_addc(b, *p);
		}
	}
	buf_addc(b, '"');
}

/* Run `tmux -V` and keep the version; refuse tmux older than 3.2a. */
static int
tmux_check_version(char **cause)
{
	char	 out[128], *p;
	int	 fds[2], st, major = 0, minor = 0;
	ssize_t	 n, got = 0;
	pid_t	 pid;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", strerror(errno));
		return (-1);
	}
	if ((pid = fork()) == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		execlp(cfg.tmux_bin, cfg.tmux_bin, "-V", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && (size_t)got < sizeof out - 1 &&
	    (n = read(fds[0], out + got, sizeof out - 1 - (size_t)got)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		got += n;
	}
	out[got] = '\0';
	close(fds[0]);
	if (pid == -1 || waitpid(pid, &st, 0) == -1 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		xasprintf(cause, "cannot run %s: install tmux 3.2a or newer "
		    "(apt-get install tmux) or set PROGMUX_TMUX_BIN",
		    cfg.tmux_bin);
		return (-1);
	}
	out[strcspn(out, "\n")] = '\0';
	for (p = out; *p != '\0' && (*p < '0' || *p > '9'); p++)
		;
	if (sscanf(p, "%d.%d", &major, &minor) < 2)
		major = minor = 0;
	snprintf(tm.version, sizeof tm.version, "%.31s", p);
	/* 3.2a is the first release with what we use; "3.2" itself is not. */
	if (major < 3 || (major == 3 && minor < 2) ||
	    (major == 3 && minor == 2 && (p[3] < 'a' || p[3] > 'z'))) {
		xasprintf(cause, "%s is \"%s\"; progmux needs tmux 3.2a or "
		    "newer", cfg.tmux_bin, out);
		return (-1);
	}
	tm.version_ok = true;
	return (0);
}

static void	tmux_build_argv(void);

/* For --check: tmux's version, or why it cannot be used. */
int
tmux_probe(char **version, char **cause)
{
	if (!tm.version_ok && tmux_check_version(cause) == -1)
		return (-1);
	*version = xstrdup(tm.version);
	return (0);
}

/* For --check: 1 if a server answers on our socket, 0 if none does. */
int
tmux_server_running(void)
{
	char	*argv[8];
	size_t	 n = 0, i;
	int	 st, null;
	pid_t	 pid;

	tmux_build_argv();
	for (i = 0; tm.argv[i] != NULL; i++)
		argv[n++] = tm.argv[i];
	argv[n++] = (char *)"list-sessions";
	argv[n] = NULL;
	if ((pid = fork()) == 0) {
		if ((null = open("/dev/null", O_RDWR)) != -1) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid == -1 || waitpid(pid, &st, 0) == -1)
		return (0);
	return (WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The client's argv prefix: binary and socket. */
static void
tmux_build_argv(void)
{
	size_t	n = 0;

	strv_free(tm.argv);
	tm.argv = xcalloc(4, sizeof *tm.argv);
	tm.argv[n++] = xstrdup(cfg.tmux_bin);
	if (cfg.socket_path != NULL) {
		tm.argv[n++] = xstrdup("-S");
		tm.argv[n++] = xstrdup(cfg.socket_path);
	} else if (cfg.socket_name != NULL) {
		tm.argv[n++] = xstrdup("-L");
		tm.argv[n++] = xstrdup(cfg.socket_name);
	}
}

/*
 * tmux inherits our descriptor limit (main.c raised the soft one to the
 * hard one). A server started under a tiny limit cannot open its panes
 * and spins: refuse to start it at all, saying which limit to raise.
 */
static int
tmux_check_nofile(char **cause)
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

/*
 * A private server is born with its options, from a file in the runtime
 * directory: no moment exists at which it runs without them. When our
 * control client goes (however we die), its session is destroyed, and
 * an empty or unattached server exits.
 */
static int
tmux_write_conf(char **cause)
{
	static const char	 conf[] =
	    "set-option -s exit-empty on\n"
	    "set-option -s exit-unattached on\n"
	    "set-option -g destroy-unattached on\n"
	    "set-option -g default-size 80x24\n";
	char			*path;
	int			 fd;

	xasprintf(&path, "%s/tmux.conf", cfg.rundir);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1 || fd_write_all(fd, conf, sizeof conf - 1) == -1) {
		xasprintf(cause, "cannot write %s: %s", path,
		    fd_strerror(errno));
		if (fd != -1)
			close(fd);
		free(path);
		return (-1);
	}
	close(fd);
	free(tm.conf);
	tm.conf = path;
	return (0);
}

/* The private server's configuration file, for main.c to remove. */
const char *
tmux_conf_path(void)
{
	return (tm.conf);
}

/* Start the control client (and with it the server and session). */
int
tmux_start(char **cause)
{
	if (tm.alive)
		return (0);
	if ((!tm.version_ok && tmux_check_version(cause) == -1) ||
	    tmux_check_nofile(cause) == -1 ||
	    (cfg.robust && tm.conf == NULL && tmux_write_conf(cause) == -1)) {
		free(tm.failure);
		tm.failure = xstrdup(*cause);
		return (-1);
	}
	tmux_build_argv();
	tm.alive = true;
	tm.ready = tm.probing = tm.closing = false;
	tm.in_block = false;
	buf_reset(&tm.rbuf);
	buf_reset(&tm.wbuf);
	free(tm.failure);
	tm.failure = NULL;
	if (tmux_lock_attach()) {
		tm.locking = true;	/* tmux_lock_retry goes on */
		log_debug("the attach lock is held; waiting up to %d ms",
		    TMUX_LOCK_WAIT_MS);
		return (0);
	}
	if (tmux_spawn(cause) == -1) {
		tm.alive = false;
		tmux_unlock_attach();
		free(tm.failure);
		tm.failure = xstrdup(*cause);
		return (-1);
	}
	return (0);
}

/*
 * Fork and exec the control client. Its session, if it makes one, gets
 * a window running our idle process, never the person's shell. The
 * client dies with us: PR_SET_PDEATHSIG sends it SIGTERM however we die
 * (tmux then drops it and its session), and if we died before the
 * prctl took, it does not start at all.
 */
static int
tmux_spawn(char **cause)
{
	int	 in[2], out[2];
	char	*argv[24], pidarg[32];
	size_t	 n = 0, i;
	pid_t	 parent = getpid();

	if (pipe2(in, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		return (-1);
	}
	if (pipe2(out, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", fd_strerror(errno));
		close(in[0]);
		close(in[1]);
		return (-1);
	}
	snprintf(pidarg, sizeof pidarg, "%ld", (long)parent);
	for (i = 0; tm.argv[i] != NULL; i++)
		argv[n++] = tm.argv[i];
	if (cfg.robust) {
		argv[n++] = (char *)"-f";
		argv[n++] = tm.conf;
	}
	argv[n++] = (char *)"-C";
	argv[n++] = (char *)"new-session";
	argv[n++] = (char *)"-A";
	argv[n++] = (char *)"-s";
	argv[n++] = cfg.session;
	/* Separate words: exec'd as they are, no shell, no tmux parsing. */
	argv[n++] = cfg.reaper_path;
	argv[n++] = (char *)"--idle";
	argv[n++] = pidarg;
	argv[n] = NULL;

	if ((tm.pid = fork()) == -1) {
		xasprintf(cause, "fork: %s", strerror(errno));
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return (-1);
	}
	if (tm.pid == 0) {
		sigset_t	set;

		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 ||
		    getppid() != parent)
			_exit(1);
		sigemptyset(&set);
		sigprocmask(SIG_SETMASK, &set, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(out[0], STDIN_FILENO);
		dup2(in[1], STDOUT_FILENO);
		setsid();	/* no terminal: our stdin is the protocol */
		execvp(argv[0], argv);
		_exit(127);
	}
	close(out[0]);
	close(in[1]);
	tm.in = in[0];
	tm.out = out[1];
	fd_nonblock(tm.in, 1);
	fd_nonblock(tm.out, 1);
	tm.attach_deadline = now_ms() + TMUX_ATTACH_MS;
	log_debug("control client %ld on %s", (long)tm.pid,
	    cfg.socket_path ? cfg.socket_path : cfg.socket_name ?
	    cfg.socket_name : "the default socket");
	return (0);
}

/* The client is gone: fail what waits, close up. */
static void
tmux_dead(const char *why)
{
	struct tmux_cmd	*c, *list;
	char		*why_copy;

	if (!tm.alive)
		return;
	if (strcmp(why, TMUX_EXITING) == 0 || tm.closing)
		log_debug("tmux control client closed (%s)", why);
	else
		log_warn("tmux control client ended: %s", why);
	log_notify(LOG_NOTIFY_WARNING, "tmux", "the tmux control client "
	    "ended (%s); programs in flight read as gone", why);
	tm.alive = false;
	tm.gen++;
	tmux_unlock_attach();
	free(tm.idle_pane);
	tm.idle_pane = NULL;
	free(tm.failure);
	xasprintf(&tm.failure, "the tmux server went away (%s); the next "
	    "start_program starts it again", why);
	close(tm.in);
	close(tm.out);
	tm.in = tm.out = -1;
	if (tm.pid > 0)
		kill(tm.pid, SIGTERM);
	tm.pid = -1;
	/* Detach the queue first: a callback may start a new client. */
	list = tm.head;
	tm.head = tm.tail = NULL;
	why_copy = xstrdup(tm.failure);
	while ((c = list) != NULL) {
		list = c->next;
		if (c->cb != NULL)
			c->cb(c->arg, false, why_copy, strlen(why_copy));
		free(c->line);
		free(c);
	}
	free(why_copy);
}

void
tmux_stop(void)
{
	if (tm.alive)
		tmux_dead(TMUX_EXITING);
}

void
tmux_command(const char *line, tmux_cb cb, void *arg)
{
	struct tmux_cmd	*c;
	char		*cause = NULL;

	if (!tm.alive && tmux_start(&cause) == -1) {
		if (cb != NULL)
			cb(arg, false, cause, strlen(cause));
		free(cause);
		return;
	}
	log_debug("> %s", line);
	c = xcalloc(1, sizeof *c);
	c->cb = cb;
	c->arg = arg;
	if (tm.tail != NULL)
		tm.tail->next = c;
	else
		tm.head = c;
	tm.tail = c;
	if (!tm.ready) {
		c->line = xstrdup(line);	/* written once attached */
		return;
	}
	buf_adds(&tm.wbuf, line);
	buf_addc(&tm.wbuf, '\n');
	tmux_on_writable();
}

void
tmux_on_writable(void)
{
	/* Nothing goes before the client is attached (see tmux_line). */
	if (tm.alive && (tm.ready || tm.probing) &&
	    fd_flush(tm.out, &tm.wbuf) == -1)
		tmux_dead(strerror(errno));
}

/* A whole block: hand it to the oldest command. */
static void
tmux_block_done(bool ok)
{
	struct tmux_cmd	*c;

	if (tm.probing) {
		/* The probe's answer: tmux takes our commands. */
		tmux_attached();
		return;
	}
	if ((c = tm.head) == NULL) {
		log_warn("tmux answered a command we did not send");
		return;
	}
	tm.head = c->next;
	if (tm.head == NULL)
		tm.tail = NULL;
	if (tm.block.len > 0 && tm.block.data[tm.block.len - 1] == '\n')
		tm.block.len--;
	log_debug("< %s %.*s", ok ? "ok" : "error", (int)tm.block.len,
	    tm.block.data ? tm.block.data : "");
	if (c->cb != NULL)
		c->cb(c->arg, ok, buf_cstr(&tm.block), tm.block.len);
	free(c->line);
	free(c);
}

/* One line of control-mode output. */
static void
tmux_line(char *line, size_t len)
{
	unsigned long	t, num;
	int		flags;

	log_debug("< %.*s", (int)(len > 100 ? 100 : len), line);
	if (tm.in_block) {
		/*
		 * A command's output is not escaped (capture-pane of a pane
		 * showing "%end ..." prints that line): only the guard lines
		 * carrying the %begin's time and number end the block.
		 */
		if ((strncmp(line, "%end ", 5) == 0 ||
		    strncmp(line, "%error ", 7) == 0) &&
		    sscanf(line + (line[1] == 'e' && line[2] == 'n' ? 5 : 7),
		    "%lu %lu %d", &t, &num, &flags) == 3 &&
		    t == tm.block_time && num == tm.block_num) {
			tm.in_block = false;
			if (tm.ours)
				tmux_block_done(line[2] == 'n');
			return;
		}
		if (tm.ours) {
			buf_add(&tm.block, line, len);
			buf_addc(&tm.block, '\n');
		}
		return;
	}
	if (strncmp(line, "%begin ", 7) == 0 &&
	    sscanf(line + 7, "%lu %lu %d", &t, &num, &flags) == 3) {
		tm.in_block = true;
		tm.block_time = t;
		tm.block_num = num;
		tm.ours = (flags & 1) != 0;
		buf_reset(&tm.block);
		return;
	}
	if (strncmp(line, "%session-changed ", 17) == 0 && !tm.ready &&
	    !tm.probing) {
		/*
		 * Attached. Commands sent before this can fail ("no current
		 * client") or go unanswered; one probe goes first, and the
		 * rest once tmux has answered it.
		 */
		tm.probing = true;
		buf_adds(&tm.wbuf, TMUX_PROBE "\n");
		tmux_on_writable();
		return;
	}
	if (strncmp(line, "%exit", 5) == 0)
		tmux_dead(len > 6 ? line + 6 : "the session or server ended");
	/* Other notifications are not ours to act on. */
}

void
tmux_on_readable(void)
{
	ssize_t	 n;
	char	 *nl, *p;
	size_t	  used;
	unsigned  gen;

	n = fd_read_into(tm.in, &tm.rbuf, 64 * 1024);
	if (n == -1 && errno == EAGAIN)
		return;
	if (n <= 0) {
		tmux_dead(n == 0 ? "it closed its output" : strerror(errno));
		return;
	}
	p = tm.rbuf.data;
	used = 0;
	gen = tm.gen;
	while (tm.alive && tm.gen == gen &&
	    (nl = memchr(p + used, '\n', tm.rbuf.len - used)) != NULL) {
		*nl = '\0';
		tmux_line(p + used, (size_t)(nl - (p + used)));
		used = (size_t)(nl - p) + 1;
	}
	if (tm.alive && tm.gen == gen)
		buf_drain(&tm.rbuf, used);

}

/* Reap the control client if it was ours and has exited. */
bool
tmux_reaped(pid_t pid)
{
	if (pid != tm.pid)
		return (false);
	tm.pid = -1;
	if (tm.alive)
		tmux_dead("it exited");
	return (true);
}
