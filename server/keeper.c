/*
 * keeper.c — the process the client started: the front's parent, there
 * when the front is not.
 *
 * At start-up progmux forks. The child is the front and does all the
 * work; the parent, the keeper, only waits for it. It passes on the
 * signals the client sends it (SIGTERM, SIGINT, SIGHUP), and if it dies
 * itself, the front is told (its loop polls a watch of the keeper, and
 * where the system has one a parent-death signal sends it SIGTERM) and
 * exits in order. When the front has exited, however it died, the
 * keeper:
 *
 *  - in robust mode, ends everything that is still below it. It is a
 *    subreaper, and so is the front: the private tmux server (which
 *    daemonizes) is the front's child, every process a program leaves,
 *    in whatever session or group, is reparented within the front's
 *    tree, and when the front goes all of them are reparented to the
 *    keeper. It SIGKILLs them until none is left. On a system without
 *    subreapers (osdep.h) the private server is not below it: the keeper
 *    ends it with `tmux kill-server` on its socket instead, and each
 *    program's reaper and launcher end what the program left;
 *  - removes the runtime directory if nobody of the instance holds it
 *    any more (rundir.h; reapers still at work remove it themselves);
 *
 * and exits with the front's status. It holds nothing of the front's:
 * not the protocol (stdin and stdout are /dev/null here, so the client
 * sees EOF as soon as the front is gone), not the runtime directory's
 * lock. In desktop mode it is no subreaper: a tmux server progmux
 * started on the person's socket is theirs, and outlives us.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "log.h"
#include "osdep.h"
#include "rundir.h"
#include "server.h"
#include "timeutil.h"

#define KEEPER_SWEEP_MS		3000	/* ending what is left, at most */
#define KEEPER_RECHECK_MS	20
#define KEEPER_RUNDIR_WAIT_MS	1000	/* for a tmux server to let go */
#define KEEPER_KILL_SERVER_MS	2000	/* `tmux kill-server`, at most */

static bool	keeper_subreaper;	/* robust mode: we are one */

/* In robust mode: SIGKILL everything below us until nothing is left
 * (bounded: a process that cannot be killed is not waited for). */
static void
keeper_sweep(void)
{
	int64_t	deadline = now_ms() + KEEPER_SWEEP_MS;
	int	n;

	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		n = osdep_signal_descendants(getpid(), SIGKILL);
		if ((n <= 0 && waitpid(-1, NULL, WNOHANG) == -1 &&
		    errno == ECHILD) || now_ms() >= deadline)
			break;
		poll(NULL, 0, KEEPER_RECHECK_MS);
	}
}

/* The keeper's life: wait for the front, then clean up after it. */
static void __attribute__((noreturn))
keeper_run(pid_t front)
{
	struct pollfd		pfd;
	sigset_t		set;
	pid_t			pid;
	int			sigfd, st = 0, ws, null, signo;
	bool			done = false;

	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	if (cfg.lock_fd != -1)
		close(cfg.lock_fd);
	cfg.lock_fd = -1;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if ((sigfd = osdep_signals(&set)) == -1)
		fatalx("cannot take signals as events: %s", strerror(errno));
	pfd = (struct pollfd){ sigfd, POLLIN, 0 };
	while (!done) {
		while (!done && (pid = waitpid(-1, &ws, WNOHANG)) > 0) {
			if (pid == front) {
				st = ws;
				done = true;
			}
		}
		if (done)
			break;
		if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
			fatalx("poll: %s", strerror(errno));
		while (osdep_signal_next(sigfd, &signo))
			if (signo != SIGCHLD)
				kill(front, signo);
	}
	if (cfg.robust && !keeper_subreaper)
		(void)tmux_run_wait("kill-server", KEEPER_KILL_SERVER_MS);
	if (cfg.robust)
		keeper_sweep();
	if (cfg.rundir != NULL)
		rundir_remove_path(cfg.rundir, KEEPER_RUNDIR_WAIT_MS);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/*
 * Fork the front from the keeper. Returns in the front, with a descriptor
 * that becomes readable when the keeper dies (for the front's loop), or
 * -1 if the system has none; the keeper never returns. Without a fork
 * (it failed), the one process goes on as the front, unkept.
 */
int
keeper_start(void)
{
	sigset_t	all, old;
	pid_t		keeper = getpid(), front;
	int		watch;

	if (cfg.robust) {
		if (osdep_subreaper() == 0)
			keeper_subreaper = true;
		else if (errno != ENOSYS)	/* none here: nothing to say */
			log_warn("cannot be a subreaper: %s", strerror(errno));
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if ((front = fork()) == -1) {
		log_warn("cannot fork the front (%s): going on without a "
		    "keeper", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return (-1);
	}
	if (front != 0)
		keeper_run(front);
	/* The front: dies in order if the keeper dies, and does not start
	 * if it died already (the client is gone). */
	if ((watch = osdep_parent_watch(keeper)) == -1 && errno == ESRCH)
		_exit(1);
	if (osdep_parent_death(SIGTERM, keeper) == -1 && errno != ENOSYS)
		_exit(1);
	if (cfg.robust)
		osdep_subreaper();
	sigprocmask(SIG_SETMASK, &old, NULL);
	return (watch);
}
