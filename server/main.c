/*
 * main.c — progmux, the front: settings, signals, start-up, then the loop.
 *
 * Every module registers its own descriptors and deadlines with loop.c:
 * stdin (JSON-RPC requests, read only while the replies queued are under
 * mcp.c's ceiling) and stdout (only while replies are queued) here, the
 * signals' descriptor (SIGCHLD, SIGTERM, SIGINT, SIGHUP) and the watch of
 * the keeper (readable once it has died) here, the tmux control
 * client in tmux.c, each reaper's socket in reaper_link.c. main_run turns
 * the loop; between turns it frees what was dropped and flushes stdout.
 *
 * Before the loop runs, the programs an earlier progmux left on a lease
 * are adopted (adopt.c), so the first request already finds them; the
 * first tool result says so (tools_adopted).
 *
 * stdin EOF first drains: nothing more is read, and every call already
 * taken is answered (each within its own wait, at most the wait ceiling,
 * PROGMUX_WAIT_MAX_MS) and its reply written, as a person piping
 * requests into progmux expects. Then, or at once on a terminating
 * signal or a client gone (stdout broken), the exit, in the same loop:
 * every program is told to end, the panes (and in robust mode the private
 * tmux server) go, stdout is flushed, tmux's last answers are read and
 * every child reaped, all within MAIN_EXIT_FLUSH_MS; then exit 0. A
 * program with a grace (desktop mode) is not ended but let go of, to its
 * reaper's lease, pane and all, and its reaper's exit is not waited for.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "compat.h"
#include "fdutil.h"
#include "log.h"
#include "osdep.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define MAIN_EXIT_FLUSH_MS	2000	/* at most this long to say goodbye */
#define MAIN_DRAIN_SLACK_MS	1000	/* past the wait ceiling, a drain ends */

static struct {
	int	 sigfd;
	bool	 quit;		/* a terminating signal came */
	bool	 eof;		/* stdin ended */
	bool	 draining;	/* and the calls taken are being answered */
	bool	 out_broken;	/* stdout takes nothing more */
	bool	 exiting;	/* the exit has begun */
	bool	 leased;	/* programs outlive us on their leases */
	int64_t	 drain_deadline;
	int64_t	 exit_deadline;
} mn = { .sigfd = -1, .drain_deadline = DEADLINE_NONE,
    .exit_deadline = DEADLINE_NONE };

#define MAIN_CHECK_BYTES	(64 * 1024)	/* written to prove room */
#define MAIN_CHECK_FREE		(1024 * 1024)	/* less free is "full" */

/*
 * --check: can the runtime directory take what progmux writes there (a
 * FIFO per program, tmux's socket and configuration)? Tried, not
 * guessed: a FIFO and a file of MAIN_CHECK_BYTES are made and removed,
 * and the filesystem must have MAIN_CHECK_FREE left. NULL if so, else
 * why (allocated).
 */
static char *
main_check_rundir(void)
{
	static const char	 zero[4096];
	struct statvfs		 vfs;
	char			*why = NULL;
	size_t			 off;
	int			 fd, err = 0;

	if (compat_mkfifoat(cfg.rundir_fd, "check.fifo", 0600) == -1)
		err = errno;
	unlinkat(cfg.rundir_fd, "check.fifo", 0);
	fd = openat(cfg.rundir_fd, "check.conf", O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1 && err == 0)
		err = errno;
	for (off = 0; fd != -1 && err == 0 && off < MAIN_CHECK_BYTES;
	    off += sizeof zero)
		if (fd_write_all(fd, zero, sizeof zero) == -1)
			err = errno;
	if (fd != -1 && err == 0 && fsync(fd) == -1)
		err = errno;
	if (fd != -1)
		close(fd);
	unlinkat(cfg.rundir_fd, "check.conf", 0);
	if (err != 0)
		xasprintf(&why, "cannot write there: %s", strerror(err));
	else if (fstatvfs(cfg.rundir_fd, &vfs) == 0 &&
	    (unsigned long long)vfs.f_bavail * vfs.f_frsize < MAIN_CHECK_FREE)
		xasprintf(&why, "its filesystem is full (%llu bytes free)",
		    (unsigned long long)vfs.f_bavail * vfs.f_frsize);
	return (why);
}

#define MAIN_CHECK_HOST_MS	20000	/* a host's initialize answered by then */

/*
 * --check: each host, tried: its command started, initialize asked
 * (with the name a hub gives), and ended. 1 if one is not usable.
 */
static int
main_check_hosts(void)
{
	char	 version[32], *cause = NULL;
	size_t	 i;
	int	 bad = 0;

	for (i = 0; i < cfg.nhosts; i++) {
		printf("host %s:%*s%s: ", cfg.hosts[i].name,
		    (int)(6 - (strlen(cfg.hosts[i].name) < 6 ?
		    strlen(cfg.hosts[i].name) : 6)), "", cfg.hosts[i].command);
		fflush(stdout);
		if (host_link_check(cfg.hosts[i].name, cfg.hosts[i].command,
		    MAIN_CHECK_HOST_MS, version, sizeof version, &cause) == 0)
			printf("progmux %s answers: ok\n", version);
		else {
			printf("NOT USABLE: %s\n", cause);
			free(cause);
			cause = NULL;
			bad = 1;
		}
	}
	return (bad);
}

/* --check: what would be used, and whether it works. Exit 0 if so. */
static int
main_check(void)
{
	char	*version = NULL, *cause = NULL, *rundir_why;
	int	 bad = 0, tmux_bad = 0;
	size_t	 i, n;

	printf("progmux %s (%s)\n", PROGMUX_VERSION, PROGMUX_TARGET);
	if (tmux_probe(&version, &cause) == -1) {
		printf("tmux:        NOT USABLE: %s\n", cause);
		bad = tmux_bad = 1;
	} else
		printf("tmux:        %s, version %s: ok\n", cfg.tmux_bin,
		    version);
	if (cfg.robust)
		printf("socket:      %s (private, created at start): ok\n",
		    cfg.socket_path);
	else if (!bad)
		printf("socket:      %s: %s\n", cfg.socket_path ?
		    cfg.socket_path : cfg.socket_name ? cfg.socket_name :
		    "tmux's default", tmux_server_running() ?
		    "a server answers: ok" : "no server yet; progmux will "
		    "start one: ok");
	printf("reaper:      %s: ok\n", cfg.reaper_path);
	if ((rundir_why = main_check_rundir()) != NULL) {
		printf("runtime dir: %s: NOT USABLE: %s\n", cfg.rundir,
		    rundir_why);
		bad = 1;
	} else
		printf("runtime dir: %s (mode 0700, writable): ok\n",
		    cfg.rundir);
	printf("mode:        %s; session %s\n", cfg.robust ? "robust" :
	    "desktop", cfg.session);
	printf("ceilings:    wait %lld ms, output %lld bytes per program "
	    "and %lld in all, %lld programs alive, %lld ended kept, lifetime "
	    "%lld ms, pane %lld cells\n", (long long)cfg.wait_max_ms,
	    (long long)cfg.output_max_bytes,
	    (long long)cfg.total_output_max_bytes,
	    (long long)cfg.max_programs, (long long)cfg.keep_ended,
	    (long long)cfg.lifetime_max_ms, (long long)cfg.pane_max_cells);
	printf("tools:       %s tier%s:", config_tier_name(), cfg.tools ?
	    " and PROGMUX_TOOLS" : "");
	for (n = 0, i = 0; tools_name(i) != NULL; i++)
		if (tools_offered(i))
			printf("%s %s", n++ ? "," : "", tools_name(i));
	printf("%s\n", n ? "" : " none");
	if (main_check_hosts() != 0)
		bad = 1;
	config_rundir_leave();
	if (tmux_bad)
		printf("fix: install tmux 3.2a or newer (%s) or point "
		    "PROGMUX_TMUX_BIN at one\n", tmux_install_advice());
	if (rundir_why != NULL)
		printf("fix: free space where the runtime directory goes, or "
		    "set TMPDIR (or XDG_RUNTIME_DIR) to a directory with room\n");
	free(rundir_why);
	free(version);
	free(cause);
	return (bad);
}
/*
 * Raise the soft descriptor limit to the hard one: each program costs us
 * a socket and tmux a terminal and a pipe. tmux, started by us,
 * inherits the raised limit; tmux.c refuses to start it under a tiny one.
 * A system that takes no more than OPEN_MAX (macOS, whose hard limit is
 * unlimited: setrlimit(2)) gets that.
 */
static void
main_nofile(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		return;
#ifdef OPEN_MAX
	if (errno == EINVAL && rl.rlim_max > OPEN_MAX) {
		rl.rlim_cur = OPEN_MAX;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			return;
	}
#endif
	log_warn("cannot raise the descriptor limit to %llu: %s",
	    (unsigned long long)rl.rlim_cur, strerror(errno));
}

static void	main_on_signal(int, int, void *);

/*
 * Reap every child that has exited, routing each to its owner (tmux's
 * control client and version probe, a program's reaper; in robust mode
 * also what was left below us, as subreaper: nobody's). False once none
 * is left (ECHILD).
 */
static bool
main_reap(void)
{
	pid_t	pid;
	int	st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (!tmux_reaped(pid, st) && !host_links_reaped(pid, st))
			(void)reaper_links_reaped(pid, st);
	}
	return (pid == 0);
}

/* Signals become readable events. */
static void
main_signals(void)
{
	sigset_t	set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if ((mn.sigfd = osdep_signals(&set)) == -1)
		fatalx("cannot take signals as events: %s", strerror(errno));
	loop_fd_add(mn.sigfd, LOOP_READ, main_on_signal, NULL);
}

/* The signalfd is readable: reap children, or begin the exit. */
static void
main_on_signal(int fd, int fired, void *arg)
{
	int	signo;

	(void)fired;
	(void)arg;
	while (osdep_signal_next(fd, &signo)) {
		if (signo == SIGCHLD)
			(void)main_reap();
		else if (!mn.quit) {
			log_debug("signal %d: exiting", signo);
			mn.quit = true;
			/* Decided now: an end waiting to be said, whose time
			 * comes in this same turn, is not. */
			quiet_exit();
		}
	}
}

/* The keeper has died (its watch is readable): exit, as on SIGTERM. */
static void
main_on_keeper(int fd, int fired, void *arg)
{
	(void)fired;
	(void)arg;
	loop_fd_del(fd);
	close(fd);
	if (!mn.quit) {
		log_debug("the keeper has gone: exiting");
		mn.quit = true;
		quiet_exit();
	}
}

/* stdin is readable: requests, a bounded number of reads per wakeup. */
static void
main_on_stdin(int fd, int fired, void *arg)
{
	char	buf[64 * 1024];
	ssize_t	n;
	int	rounds = 0;

	(void)fired;
	(void)arg;
	while (rounds++ < 16) {
		n = read(fd, buf, sizeof buf);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				mn.eof = true;
			return;
		}
		if (n == 0) {
			mn.eof = true;
			return;
		}
		mcp_input(buf, (size_t)n);
		if (mcp_input_paused())
			return;		/* the client must read first */
	}
}

/* Write the replies queued; a client gone stops taking them. */
static void
main_flush(void)
{
	if (mn.out_broken || !mcp_output_pending())
		return;
	if (mcp_flush(STDOUT_FILENO) == -1) {
		log_debug("stdout: %s", strerror(errno));
		mn.out_broken = true;
		mn.quit = true;		/* the client is gone */
		loop_fd_del(STDOUT_FILENO);
	}
}

/* stdout is writable. */
static void
main_on_stdout(int fd, int fired, void *arg)
{
	(void)fd;
	(void)fired;
	(void)arg;
	main_flush();
}

/*
 * Begin the exit: no more requests; every program told to end and its
 * pane removed; tmux's last commands queued (kill-server, or our idle
 * window's kill-pane). The loop goes on until main_exit_done.
 */
static void
main_exit_begin(void)
{
	mn.exiting = true;
	quiet_exit();
	mn.exit_deadline = now_ms() + MAIN_EXIT_FLUSH_MS;
	if (!mn.draining) {
		loop_fd_del(STDIN_FILENO);
		if (mn.eof)
			mcp_input_eof();
	}
	if (programs_shutdown() > 0) {
		mn.leased = true;
		tmux_session_linger();
	}
	tmux_shutdown();
	mcp_hosts_shutdown();
}

/*
 * stdin ended: read nothing more (a last line without LF still counts),
 * and let every call taken be answered before the exit begins; a call
 * waits at most the wait ceiling, so the drain is bounded by it.
 */
static void
main_drain_begin(void)
{
	mn.draining = true;
	mn.drain_deadline = now_ms() + cfg.wait_max_ms + MAIN_DRAIN_SLACK_MS;
	loop_fd_del(STDIN_FILENO);
	mcp_input_eof();
	if (mcp_replies_owed())
		log_debug("end of input: answering the calls in flight first");
}

/* Is it time to begin the exit: a signal, the client gone, or the end
 * of input and every call taken answered (or the drain's deadline)? */
static bool
main_exit_due(void)
{
	if (mn.exiting)
		return (false);
	if (mn.quit)
		return (true);
	if (mn.eof && !mn.draining)
		main_drain_begin();
	return (mn.draining && ((!mcp_replies_owed() && !mcp_input_held()) ||
	    now_ms() >= mn.drain_deadline));
}

/*
 * Is the exit done? Replies flushed (or the client gone), the last
 * tmux commands answered, not only written (the server reads our
 * client's input, and drops what it has not read once the client goes),
 * and every host's link gone (its progmux there ending its programs
 * first); then the client is let go; then every child reaped (orphans
 * would be left for init, which some containers never reap).
 */
static bool
main_exit_done(void)
{
	if ((!mn.out_broken && mcp_output_pending()) || !tmux_idle() ||
	    host_links_alive())
		return (false);
	if (tmux_alive())
		tmux_stop();
	/* Robust mode: the private server is told to go; anything of it
	 * still below us (we are a subreaper: a program's setsid daemon, a
	 * process ignoring SIGHUP, a window it opened) goes too. */
	if (cfg.robust)
		osdep_signal_descendants(getpid(), SIGKILL);
	/* (Reapers holding their programs on a lease are not waited for:
	 * they outlive us. Desktop mode only: there our children are tmux's
	 * and the reapers alone.) */
	return (!main_reap() || (mn.leased && !tmux_children() &&
	    reaper_links_waited() == 0));
}

/* Between turns: free what was dropped, flush, and set what stdin and
 * stdout wait for. */
static void
main_tidy(void)
{
	programs_collect();
	main_flush();
	if (!mn.exiting) {
		mcp_input_resume();
		/* Backpressure: no requests while replies pile up. */
		if (!mn.draining)
			loop_fd_mask(STDIN_FILENO, mcp_input_paused() ? 0 :
			    LOOP_READ);
	}
	if (!mn.out_broken)
		loop_fd_mask(STDOUT_FILENO, mcp_output_pending() ?
		    LOOP_WRITE : 0);
}

/* The one loop, running and then exiting, until the exit is done or its
 * deadline has passed. */
static void
main_run(void)
{
	for (;;) {
		main_tidy();
		if (main_exit_due()) {
			main_exit_begin();
			main_tidy();
		}
		if (mn.exiting && (main_exit_done() ||
		    now_ms() >= mn.exit_deadline))
			break;
		loop_run_once(mn.exiting ? mn.exit_deadline :
		    mn.drain_deadline);
	}
	tmux_stop();
	host_links_kill();	/* (a link that did not end by now) */
	config_rundir_leave();	/* or the last reaper of ours removes it */
	programs_collect();
}

/* Adopt what an earlier progmux left on a lease; the first result and
 * stderr say so. */
static void
main_adopt(void)
{
	char	**ids, *list = NULL, *more;
	size_t	  n, i;

	if ((n = adopt_start(&ids)) == 0)
		return;
	for (i = 0; i < n; i++) {
		xasprintf(&more, "%s%s%s", list != NULL ? list : "",
		    i > 0 ? ", " : "", ids[i]);
		free(list);
		list = more;
	}
	log_info("adopted %zu program%s an earlier progmux left running: %s",
	    n, n == 1 ? "" : "s", list);
	free(list);
	tools_adopted(ids, n);
}

/* Settings, signals, start-up; then the loop until the exit is done. */
int
main(int argc, char **argv)
{
	char	*cause = NULL, *version = NULL;
	int	 ret, keeper;

	log_init("progmux");
	/*
	 * Descriptors we were started with beyond 0-2 (a shell's saved
	 * ones, a client's) must not reach reapers: close-on-exec for all.
	 */
	fd_cloexec_from(3);
	/* stdout is the protocol: nothing else may write to it. */
	setvbuf(stdout, NULL, _IONBF, 0);
	if ((ret = config_load(argc, argv, &cause)) != 0) {
		if (ret == 1)
			return (0);
		fprintf(stderr, "progmux: %s\n", cause);
		free(cause);
		return (2);
	}
	if (tools_init(&cause) == -1) {
		fprintf(stderr, "progmux: %s\n", cause);
		free(cause);
		config_rundir_leave();
		return (2);
	}
	if (cfg.check)
		return (main_check());
	keeper = keeper_start();	/* from here on, the front (keeper.c) */
	main_nofile();
	main_signals();
	if (keeper != -1)
		loop_fd_add(keeper, LOOP_READ, main_on_keeper, NULL);
	mcp_init();
	programs_init();
	/* The version is known before the loop runs (the start line says
	 * it); later probes, after a failure, run in the loop. */
	if (tmux_probe(&version, &cause) == -1 || tmux_start(&cause) == -1) {
		log_warn("%s; tools will say so until it is fixed", cause);
		free(cause);
		cause = NULL;
	}
	free(version);
	log_info("progmux %s on tmux %s, socket %s, %s mode, session %s, "
	    "wait max %lld ms, output max %lld bytes, max programs %lld, "
	    "keep ended %lld, lifetime max %lld ms, total output max %lld "
	    "bytes, orphan grace %lld ms, runtime directory %s",
	    PROGMUX_VERSION, tmux_version()[0] ?
	    tmux_version() : "(not found)", cfg.socket_path ? cfg.socket_path :
	    cfg.socket_name ? cfg.socket_name : "(tmux default)",
	    cfg.robust ? "robust" : "desktop", cfg.session,
	    (long long)cfg.wait_max_ms, (long long)cfg.output_max_bytes,
	    (long long)cfg.max_programs, (long long)cfg.keep_ended,
	    (long long)cfg.lifetime_max_ms,
	    (long long)cfg.total_output_max_bytes,
	    (long long)cfg.orphan_grace_ms, cfg.rundir);
	main_adopt();
	fd_nonblock(STDIN_FILENO, 1);
	fd_nonblock(STDOUT_FILENO, 1);
	loop_fd_add(STDIN_FILENO, LOOP_READ, main_on_stdin, NULL);
	loop_fd_add(STDOUT_FILENO, 0, main_on_stdout, NULL);
	main_run();
	return (0);
}
