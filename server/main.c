/*
 * main.c — progmux, the front: settings, start-up, and the poll loop.
 *
 * One loop serves everything: stdin (JSON-RPC requests, only while the
 * replies queued are under mcp.c's ceiling), stdout (only while replies
 * are queued), the tmux control client, every reaper's
 * socket, and a signalfd for SIGCHLD, SIGTERM, SIGINT and SIGHUP. The
 * poll timeout is the earliest deadline of a waiting request. Nothing in
 * the loop blocks: a read that waits 30 s is a parked request, not a
 * blocked call.
 *
 * stdin EOF or a terminating signal ends every program, removes the panes
 * (and in robust mode the private tmux server), flushes stdout and exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "fdutil.h"
#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define MAIN_EXIT_FLUSH_MS	2000	/* at most this long to say goodbye */

static int	main_sigfd = -1;

/* --check: what would be used, and whether it works. Exit 0 if so. */
static int
main_check(void)
{
	char	*version = NULL, *cause = NULL;
	int	 bad = 0;
	size_t	 i, n;

	printf("progmux %s\n", PROGMUX_VERSION);
	if (tmux_probe(&version, &cause) == -1) {
		printf("tmux:        NOT USABLE: %s\n", cause);
		bad = 1;
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
	printf("runtime dir: %s (mode 0700, writable): ok\n", cfg.rundir);
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
	config_rundir_leave();
	if (bad)
		printf("fix: install tmux 3.2a or newer (apt-get install tmux) "
		    "or point PROGMUX_TMUX_BIN at one\n");
	free(version);
	free(cause);
	return (bad);
}
static bool	main_quit;

/*
 * Raise the soft descriptor limit to the hard one: each program costs us
 * a socket and tmux a terminal and a pipe. tmux, started by us,
 * inherits the raised limit; tmux.c refuses to start it under a tiny one.
 */
static void
main_nofile(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		log_warn("cannot raise the descriptor limit to %llu: %s",
		    (unsigned long long)rl.rlim_max, strerror(errno));
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
	sigprocmask(SIG_BLOCK, &set, NULL);
	if ((main_sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) ==
	    -1)
		fatalx("signalfd: %s", strerror(errno));
}

static void
main_on_signal(void)
{
	struct signalfd_siginfo	si;

	while (read(main_sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			programs_reap_children();
		else {
			log_debug("signal %u: exiting", si.ssi_signo);
			main_quit = true;
		}
	}
}

static void
main_read_stdin(bool *eof)
{
	char	buf[64 * 1024];
	ssize_t	n;
	int	rounds = 0;

	while (rounds++ < 16) {
		n = read(STDIN_FILENO, buf, sizeof buf);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				*eof = true;
			return;
		}
		if (n == 0) {
			*eof = true;
			return;
		}
		mcp_input(buf, (size_t)n);
		if (mcp_input_paused())
			return;		/* the client must read first */
	}
}

/*
 * Wait (until deadline) for every child to exit and reap it: the reapers
 * told to quit and the tmux client. Orphans would be left for init, which
 * some containers never reap.
 */
static void
main_reap_all(int64_t deadline)
{
	struct pollfd		pfd;
	struct signalfd_siginfo	si;
	pid_t			pid;

	for (;;) {
		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (pid == -1 || now_ms() >= deadline)
			return;		/* ECHILD: none left */
		pfd = (struct pollfd){ main_sigfd, POLLIN, 0 };
		if (poll(&pfd, 1, poll_timeout(deadline)) > 0)
			while (read(main_sigfd, &si, sizeof si) > 0)
				;
	}
}

/*
 * Say goodbye: end programs, flush what is queued, within a bound. The
 * last tmux commands (kill-pane, kill-server) must be answered, not only
 * written: the server reads our client's input, and drops what it has
 * not read once the client goes.
 */
static void
main_shutdown(void)
{
	struct pollfd	pfd[3];
	int64_t		deadline = now_ms() + MAIN_EXIT_FLUSH_MS;
	int		n, i_tin;
	bool		out_ok = true;	/* stdout still takes our replies */

	programs_shutdown();
	if (cfg.robust && tmux_alive())
		tmux_command("kill-server", NULL, NULL);
	else
		tmux_release();
	while (now_ms() < deadline && ((out_ok && mcp_output_pending()) ||
	    !tmux_idle())) {
		n = 0;
		i_tin = -1;
		if (out_ok && mcp_output_pending())
			pfd[n++] = (struct pollfd){ STDOUT_FILENO, POLLOUT, 0 };
		if (tmux_fd_out() != -1)
			pfd[n++] = (struct pollfd){ tmux_fd_out(), POLLOUT, 0 };
		if (tmux_fd_in() != -1)
			pfd[i_tin = n++] = (struct pollfd){ tmux_fd_in(), POLLIN,
			    0 };
		if (poll(pfd, n, poll_timeout(deadline)) <= 0)
			break;
		/* A client gone does not excuse us from tmux's answers. */
		if (out_ok && mcp_output_pending() &&
		    mcp_flush(STDOUT_FILENO) == -1)
			out_ok = false;
		if (tmux_fd_out() != -1)
			tmux_on_writable();
		if (i_tin != -1 && pfd[i_tin].revents)
			tmux_on_readable();
		tmux_check_attach();
	}
	tmux_stop();
	main_reap_all(deadline);
	config_rundir_leave();	/* or the last reaper of ours removes it */
}

int
main(int argc, char **argv)
{
	struct pollfd	*pfd = NULL;
	struct program	**pp = NULL, *p;
	size_t		 cap = 0, n, i, first_prog;
	char		*cause = NULL;
	bool		 eof = false;
	int64_t		 deadline;
	int		 ret, i_in, i_out, i_tin, i_tout, i_sig;

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
	if (cfg.check)
		return (main_check());
	main_nofile();
	main_signals();
	mcp_init();
	programs_init();
	if (tools_init(&cause) == -1)
		fatalx("%s", cause);
	if (tmux_start(&cause) == -1) {
		log_warn("%s; tools will say so until it is fixed", cause);
		free(cause);
		cause = NULL;
	}
	log_info("progmux %s on tmux %s, socket %s, %s mode, session %s, "
	    "wait max %lld ms, output max %lld bytes, max programs %lld, "
	    "keep ended %lld, lifetime max %lld ms, total output max %lld "
	    "bytes, runtime directory %s", PROGMUX_VERSION,
	    tmux_version()[0] ?
	    tmux_version() : "(not found)", cfg.socket_path ? cfg.socket_path :
	    cfg.socket_name ? cfg.socket_name : "(tmux default)",
	    cfg.robust ? "robust" : "desktop", cfg.session,
	    (long long)cfg.wait_max_ms, (long long)cfg.output_max_bytes,
	    (long long)cfg.max_programs, (long long)cfg.keep_ended,
	    (long long)cfg.lifetime_max_ms,
	    (long long)cfg.total_output_max_bytes, cfg.rundir);
	fd_nonblock(STDIN_FILENO, 1);
	fd_nonblock(STDOUT_FILENO, 1);

	while (!main_quit && !eof) {
		n = 5;
		for (p = program_first(); p != NULL; p = program_next(p))
			n++;
		if (n > cap) {
			cap = n * 2;
			pfd = xreallocarray(pfd, cap, sizeof *pfd);
			pp = xreallocarray(pp, cap, sizeof *pp);
		}
		n = 0;
		i_tin = i_tout = -1;
		pfd[i_sig = n++] = (struct pollfd){ main_sigfd, POLLIN, 0 };
		/* Backpressure: no requests while replies pile up. */
		pfd[i_in = n++] = (struct pollfd){ mcp_input_paused() ? -1 :
		    STDIN_FILENO, POLLIN, 0 };
		pfd[i_out = n++] = (struct pollfd){ STDOUT_FILENO,
		    mcp_output_pending() ? POLLOUT : 0, 0 };
		if (tmux_fd_in() != -1)
			pfd[i_tin = n++] = (struct pollfd){ tmux_fd_in(),
			    POLLIN, 0 };
		if (tmux_fd_out() != -1)
			pfd[i_tout = n++] = (struct pollfd){ tmux_fd_out(),
			    POLLOUT, 0 };
		first_prog = n;
		for (p = program_first(); p != NULL; p = program_next(p)) {
			if (program_fd(p) == -1)
				continue;
			pp[n] = p;
			pfd[n++] = (struct pollfd){ program_fd(p), POLLIN |
			    (program_fd_wants_write(p) ? POLLOUT : 0), 0 };
		}
		deadline = mcp_next_deadline();
		if (tmux_deadline() < deadline)
			deadline = tmux_deadline();
		if (programs_deadline() < deadline)
			deadline = programs_deadline();
		if (poll(pfd, n, poll_timeout(deadline)) == -1) {
			if (errno == EINTR)
				continue;
			fatalx("poll: %s", strerror(errno));
		}
		/* Work the last turn deferred, its replies sent first. */
		programs_run_deferred();
		if (pfd[i_sig].revents & POLLIN)
			main_on_signal();
		if (i_tin != -1 && pfd[i_tin].revents)
			tmux_on_readable();
		if (i_tout != -1 && pfd[i_tout].revents)
			tmux_on_writable();
		/*
		 * A program forgotten while we go keeps its memory until
		 * programs_collect() below, with its socket closed (-1).
		 */
		for (i = first_prog; i < n; i++) {
			p = pp[i];
			if (program_fd(p) != pfd[i].fd)
				continue;
			if (pfd[i].revents & POLLOUT)
				program_on_writable(p);
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
				program_on_readable(p);
		}
		if (pfd[i_in].revents)
			main_read_stdin(&eof);
		mcp_run_timers();
		tmux_check_attach();
		programs_collect();
		if (mcp_output_pending() && mcp_flush(STDOUT_FILENO) == -1) {
			log_debug("stdout: %s", strerror(errno));
			break;	/* the client is gone */
		}
		mcp_input_resume();
	}
	if (eof)
		mcp_input_eof();
	main_shutdown();
	programs_collect();
	free(pfd);
	free(pp);
	return (0);
}
