/*
 * cspawn.c — the one fork and exec sequence (cspawn.h), as tmux's job_run
 * and skalibs' cspawn do it: signals blocked across the fork so no
 * handler of ours runs in the child, and exec failures reported at once
 * through a close-on-exec pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "fdutil.h"
#include "cspawn.h"

/* Report (stage, errno) to the parent and leave. */
static void __attribute__((noreturn))
cspawn_fail(const struct spawn *sp, int fd, enum spawn_stage stage, int err)
{
	int	rec[2] = { (int)stage, err };

	(void)!write(fd, rec, sizeof rec);
	_exit(sp->fail_status != NULL ? sp->fail_status(stage, err) : 127);
}

/* Put sp->fds onto 0..nfds-1, moving them out of the way first. */
static int
cspawn_dup_fds(const struct spawn *sp, int errfd)
{
	int	moved[SPAWN_MAXFD], i, fd;

	for (i = 0; i < sp->nfds; i++) {
		fd = sp->fds[i];
		if (fd == SPAWN_NULL &&
		    (fd = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
			return (-1);
		if ((moved[i] = fcntl(fd, F_DUPFD_CLOEXEC, SPAWN_MAXFD)) == -1)
			return (-1);
	}
	for (i = 0; i < sp->nfds; i++)
		if (dup2(moved[i], i) == -1)
			return (-1);
	fd_closefrom(sp->nfds, errfd);
	return (0);
}

/* The child's side: never returns. */
static void __attribute__((noreturn))
cspawn_child(const struct spawn *sp, int errfd)
{
	sigset_t	none;
	int		sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((sp->flags & SPAWN_SETSID) && setsid() == -1)
		cspawn_fail(sp, errfd, SPAWN_FAIL_SETUP, errno);
	if ((sp->flags & SPAWN_SETPGID) && setpgid(0, 0) == -1)
		cspawn_fail(sp, errfd, SPAWN_FAIL_SETUP, errno);
	if (sp->hook != NULL && sp->hook(sp->hook_arg) == -1)
		cspawn_fail(sp, errfd, SPAWN_FAIL_HOOK, errno);
	if (cspawn_dup_fds(sp, errfd) == -1)
		cspawn_fail(sp, errfd, SPAWN_FAIL_SETUP, errno);
	if (sp->flags & SPAWN_SEARCH)
		execvp(sp->argv[0], sp->argv);
	else
		execv(sp->argv[0], sp->argv);
	cspawn_fail(sp, errfd, SPAWN_FAIL_EXEC, errno);
}

pid_t
cspawn_start(const struct spawn *sp, enum spawn_stage *stage, int *err)
{
	sigset_t	all, old;
	int		ep[2], rec[2];
	ssize_t		n;
	pid_t		pid;

	*stage = SPAWN_FAIL_SETUP;
	if (sp->nfds > SPAWN_MAXFD) {
		*err = EINVAL;
		return (-1);
	}
	if (compat_pipe2(ep, O_CLOEXEC) == -1) {
		*err = errno;
		return (-1);
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = fork()) == 0) {
		close(ep[0]);
		cspawn_child(sp, ep[1]);
	}
	*err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ep[1]);
	if (pid == -1) {
		close(ep[0]);
		return (-1);
	}
	if (sp->flags & SPAWN_SETPGID)
		setpgid(pid, pid);	/* (either side may be first) */
	do
		n = read(ep[0], rec, sizeof rec);
	while (n == -1 && errno == EINTR);
	close(ep[0]);
	if (n != (ssize_t)sizeof rec) {
		*stage = SPAWN_OK;
		*err = 0;
	} else {
		*stage = (enum spawn_stage)rec[0];
		*err = rec[1];
	}
	return (pid);
}

/* attr: every signal at its default, none blocked, in the child. */
void
cspawn_attr_init(posix_spawnattr_t *attr)
{
	sigset_t	none, all;

	posix_spawnattr_init(attr);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(attr, &none);
	posix_spawnattr_setsigdefault(attr, &all);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF);
}
