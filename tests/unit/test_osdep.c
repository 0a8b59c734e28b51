/*
 * test_osdep.c — the contract of common/osdep.h, held to whichever port
 * this build has (make OSDEP=linux, posix, darwin; the macOS build gate
 * cross-compiles it, a Mac runs it). It first prints the port and what
 * it says it offers (osdep_features), then each function against real
 * processes: the process table (a process's parent, group, session,
 * state, terminal and foreground group; children; command line, and
 * macOS's KERN_PROCARGS2 parsed from bytes; our own executable), the
 * clock of deadlines, where runtime files are safe from the system's
 * cleaner, a connect in a directory (from an unreadable working
 * directory too), the exit descriptor (of a child, of a process that is
 * not ours, of one already gone), the parent watch, signals as a
 * descriptor, descriptors closed or marked in one call, a subreaper and
 * a parent-death signal, and the walks that signal a tree, a group and a
 * session (its sockets: test_osdep_net.c). What a port says it lacks
 * must fail with ENOSYS; what it says it has must work.
 *
 * Every child is made here, waited on with a deadline (never a sleep),
 * and ended by its pid and reaped before its test ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#ifdef __linux__
#include <sched.h>
#endif

#include <cmocka.h>

#include "compat.h"
#include "osdep.h"
#include "osdep-port.h"
#include "timeutil.h"
#include "ttywait.h"

#include "osdep_child.h"

static const char	*argv0;

/* Pins: the port's name and its features, printed for the log; and a
 * name the build knows. */
static void
test_port(void **state)
{
	int	f = osdep_features();

	(void)state;
	print_message("port %s: subreaper %s, parent-death signal %s, "
	    "close_range %s, command line words %s, deferred accept %s, "
	    "listening ports %s, input-wait check %s\n", osdep_name(),
	    (f & OSDEP_SUBREAPER) ? "yes" : "no",
	    (f & OSDEP_PARENT_DEATH) ? "yes" : "no",
	    (f & OSDEP_CLOSE_RANGE) ? "yes" : "no",
	    (f & OSDEP_CMDLINE_WORDS) ? "whole" : "split at spaces",
	    (f & OSDEP_DEFER_ACCEPT) ? "yes" : "no",
	    (f & OSDEP_PORTS) ? "yes" : "cannot tell",
	    ttywait_can_tell() ? "yes" : "cannot tell");
	assert_true(strcmp(osdep_name(), "linux") == 0 ||
	    strcmp(osdep_name(), "darwin") == 0 ||
	    strcmp(osdep_name(), "posix") == 0);
}

/* Pins: our own particulars as the system has them; a stopped child
 * reads 'T' and its parent and group are ours; a pid nobody has fails. */
static void
test_proc(void **state)
{
	struct osdep_proc	p;
	int			tell, hold, st;
	pid_t			pid;

	(void)state;
	assert_int_equal(osdep_proc(getpid(), &p), 0);
	assert_int_equal(p.ppid, getppid());
	assert_int_equal(p.pgrp, getpgrp());
	assert_int_equal(p.sid, getsid(0));
	pid = child(NULL, NULL, &tell, &hold);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
	assert_true(WIFSTOPPED(st));
	assert_int_equal(osdep_proc(pid, &p), 0);
	assert_int_equal(p.state, 'T');
	assert_int_equal(p.ppid, getpid());
	assert_int_equal(p.pgrp, getpgrp());
	end_child(pid);
	close(tell);
	close(hold);
	/* Reaped: gone. */
	errno = 0;
	assert_int_equal(osdep_proc(pid, &p), -1);
	assert_int_equal(osdep_proc(0x7ffffff0, &p), -1);
}

/* In the child: a session of its own whose controlling terminal is the
 * pseudo-terminal named by arg. */
static void
take_tty(void *arg)
{
	int	fd;

	if (setsid() == -1 || (fd = open(arg, O_RDWR | O_NOCTTY)) == -1 ||
	    ioctl(fd, TIOCSCTTY, 0) == -1)
		_exit(3);
}

/* Pins: a session leader's controlling terminal (as the device number
 * of the terminal file) and its foreground group (itself). */
static void
test_proc_tty(void **state)
{
	struct osdep_proc	 p;
	struct stat		 sb;
	char			*name;
	int			 m, tell, hold;
	pid_t			 pid;

	(void)state;
	assert_int_not_equal((m = posix_openpt(O_RDWR | O_NOCTTY)), -1);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	assert_non_null((name = ptsname(m)));
	name = strdup(name);
	assert_int_equal(stat(name, &sb), 0);
	pid = child(take_tty, name, &tell, &hold);
	assert_int_equal(osdep_proc(pid, &p), 0);
	assert_int_equal(p.sid, pid);
	assert_int_equal(p.pgrp, pid);
	assert_int_equal(p.tty, (int)sb.st_rdev);
	assert_int_equal(p.tpgid, pid);
	end_child(pid);
	close(tell);
	close(hold);
	close(m);
	free(name);
}

/*
 * Pins: poll on a pane's terminal (the idle window's standard input, a
 * pseudo-terminal's slave) tells nothing while the pane lives, not
 * POLLNVAL (macOS's poll(2) "does not support devices" in general), and
 * tells the pane gone once tmux closes the master: POLLHUP, POLLERR or
 * a POLLIN whose read ends. Prints what poll said.
 */
static void
test_pty_hangup(void **state)
{
	struct pollfd	 pfd;
	char		*name;
	int		 m, n;

	(void)state;
	assert_int_not_equal((m = posix_openpt(O_RDWR | O_NOCTTY)), -1);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	assert_non_null((name = ptsname(m)));
	pfd.fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_int_not_equal(pfd.fd, -1);
	pfd.events = POLLIN;
	pfd.revents = 0;
	n = poll(&pfd, 1, 0);
	print_message("pane's terminal, pane alive: poll %d, revents %#x\n",
	    n, (unsigned)pfd.revents);
	assert_int_equal(n, 0);
	close(m);
	pfd.revents = 0;
	n = poll(&pfd, 1, WAIT_MS);
	print_message("pane's terminal, pane gone: poll %d, revents %#x "
	    "(POLLIN %#x, POLLHUP %#x, POLLERR %#x)\n", n,
	    (unsigned)pfd.revents, POLLIN, POLLHUP, POLLERR);
	assert_int_equal(n, 1);
	assert_false(pfd.revents & POLLNVAL);
	assert_true(pfd.revents & (POLLHUP | POLLERR | POLLIN));
	close(pfd.fd);
}

/* Pins: exactly our children (not a grandchild), and a cap. */
static void
test_children(void **state)
{
	pid_t	kids[3], got[8];
	int	tell[3], hold[3], i, j, n;

	(void)state;
	for (i = 0; i < 3; i++)
		kids[i] = child(NULL, NULL, &tell[i], &hold[i]);
	n = osdep_children(getpid(), got, 8);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		for (j = 0; j < n && got[j] != kids[i]; j++)
			;
		if (j == n)
			fail_msg("child %ld not listed", (long)kids[i]);
	}
	assert_int_equal(osdep_children(getpid(), got, 2), 2);
	assert_int_equal(osdep_children(kids[0], got, 8), 0);
	for (i = 0; i < 3; i++) {
		end_child(kids[i]);
		close(tell[i]);
		close(hold[i]);
	}
}

/* Pins: the command line, word by word (each ending in a NUL) where the
 * port keeps words whole, else split at the spaces; -1 for a pid nobody
 * has. */
static void
test_cmdline(void **state)
{
	static const char	 want[] = "sh\0-c\0read x\0osdep-test\0two words";
	char			 buf[4096], exp[sizeof want];
	int			 in[2];
	ssize_t			 n;
	size_t			 i;
	pid_t			 pid;
	int64_t			 deadline;

	(void)state;
	assert_int_equal(compat_pipe2(in, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		execlp("sh", "sh", "-c", "read x", "osdep-test", "two words",
		    (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	memcpy(exp, want, sizeof want);
	if (!(osdep_features() & OSDEP_CMDLINE_WORDS))
		for (i = 0; i < sizeof exp; i++)
			if (exp[i] == ' ')
				exp[i] = '\0';
	/* Until it has exec'd, it is a copy of us. */
	deadline = now_ms() + WAIT_MS;
	do
		n = osdep_cmdline(pid, buf, sizeof buf);
	while ((n != (ssize_t)sizeof exp || memcmp(buf, exp, sizeof exp) !=
	    0) && now_ms() < deadline && poll(NULL, 0, 5) == 0);
	if (n != (ssize_t)sizeof exp || memcmp(buf, exp, sizeof exp) != 0)
		fail_msg("command line of %ld: %zd bytes, not as run",
		    (long)pid, n);
	close(in[1]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(osdep_cmdline(pid, buf, sizeof buf), -1);
}

/* KERN_PROCARGS2's bytes: argc, then what follows (n bytes). */
static size_t
procargs(char *buf, int argc, const char *rest, size_t n)
{
	memcpy(buf, &argc, sizeof argc);
	memcpy(buf + sizeof argc, rest, n);
	return (sizeof argc + n);
}

/*
 * Pins: macOS's KERN_PROCARGS2 parsed from bytes, as its kernel lays them
 * out (the path's NULs up to 8 bytes past where it began): the words
 * after the padding, an empty first word kept as a word whether the
 * path needed padding or not, the environment left out; bytes not of
 * that form refused.
 */
static void
test_procargs(void **state)
{
	char		 buf[128];
	const char	*w;
	size_t		 n;

	(void)state;
	/* "/usr/bin/env" and its NUL, padded to 16: "env", "a". */
	n = procargs(buf, 2, "/usr/bin/env\0\0\0\0env\0a\0HOME=/\0", 30);
	assert_int_equal(osdep_procargs(buf, n, &w), 6);
	assert_memory_equal(w, "env\0a\0", 6);
	/* The same with an empty first word. */
	n = procargs(buf, 2, "/usr/bin/env\0\0\0\0\0a\0HOME=/\0", 27);
	assert_int_equal(osdep_procargs(buf, n, &w), 3);
	assert_memory_equal(w, "\0a\0", 3);
	/* "/bin/sh" needs no padding: its empty first word is the next NUL. */
	n = procargs(buf, 3, "/bin/sh\0\0-c\0x\0PATH=/bin\0", 25);
	assert_int_equal(osdep_procargs(buf, n, &w), 6);
	assert_memory_equal(w, "\0-c\0x\0", 6);
	/* Fewer words than argc, something in the padding, no argc. */
	n = procargs(buf, 3, "/bin/sh\0a\0b\0", 12);
	assert_int_equal(osdep_procargs(buf, n, &w), -1);
	n = procargs(buf, 1, "/bin/ls\0\0x\0", 11);
	assert_int_equal(osdep_procargs(buf, n, &w), 1);
	assert_int_equal(w[0], '\0');
	n = procargs(buf, 1, "/bin/l\0x\0", 9);
	assert_int_equal(osdep_procargs(buf, n, &w), -1);
	assert_int_equal(osdep_procargs(buf, 3, &w), -1);
	n = procargs(buf, 0, "/bin/ls\0", 8);
	assert_int_equal(osdep_procargs(buf, n, &w), -1);
}

/*
 * Pins: deadlines count time awake on every system: now_ms() reads
 * TIMEUTIL_CLOCK, which is CLOCK_UPTIME_RAW on macOS (its CLOCK_MONOTONIC
 * counts sleep, Linux's does not). Prints how long the machine has
 * slept since it started, by which macOS's two clocks differ (0 on a
 * machine that never slept: there the two cannot be told apart).
 */
static void
test_clock(void **state)
{
	struct timespec	ts;
	int64_t		before, at, after;

	(void)state;
	before = now_ms();
	assert_int_equal(clock_gettime(TIMEUTIL_CLOCK, &ts), 0);
	after = now_ms();
	at = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	assert_true(before <= at && at <= after);
#ifdef __APPLE__
	assert_int_equal(TIMEUTIL_CLOCK, CLOCK_UPTIME_RAW);
	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
	print_message("slept %lld ms since boot (CLOCK_MONOTONIC less "
	    "CLOCK_UPTIME_RAW)\n", (long long)((int64_t)ts.tv_sec * 1000 +
	    ts.tv_nsec / 1000000 - at));
#else
	assert_int_equal(TIMEUTIL_CLOCK, CLOCK_MONOTONIC);
#endif
}

/*
 * Pins: where runtime files go when TMPDIR is the directory the system
 * sweeps of files unused for days: on macOS (TMPDIR unset, /tmp, or the
 * per-user temporary directory) the per-user cache directory, ours and
 * private, which it never sweeps; a TMPDIR of the person's own choosing
 * is kept. Elsewhere TMPDIR is always kept. Prints what it saw.
 */
static void
test_unswept_dir(void **state)
{
	char		 buf[PATH_MAX], mine[] = "/tmp/progmux-osdep-XXXXXX";
	const char	*tmpdir = getenv("TMPDIR");
	struct stat	 sb;
	int		 r;

	(void)state;
	assert_non_null(mkdtemp(mine));
	assert_int_equal(osdep_unswept_dir(mine, buf, sizeof buf), 0);
	assert_int_equal(rmdir(mine), 0);
	r = osdep_unswept_dir(NULL, buf, sizeof buf);
	print_message("TMPDIR %s: runtime files %s\n", tmpdir ? tmpdir :
	    "unset", r == 1 ? buf : "in TMPDIR");
	if (strcmp(osdep_name(), "darwin") != 0) {
		assert_int_equal(r, 0);
		assert_int_equal(osdep_unswept_dir("/tmp", buf, sizeof buf), 0);
		return;
	}
	assert_int_equal(r, 1);
	assert_int_equal(stat(buf, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode) && sb.st_uid == geteuid() &&
	    (sb.st_mode & 077) == 0);
	assert_non_null(strstr(buf, "/C"));
	assert_int_equal(osdep_unswept_dir("/tmp", buf, sizeof buf), 1);
	if (tmpdir != NULL && strstr(tmpdir, "/T") != NULL)
		assert_int_equal(osdep_unswept_dir(tmpdir, buf, sizeof buf),
		    1);
}

/* Pins: our own executable, by its real path. */
static void
test_self_exe(void **state)
{
	char	got[PATH_MAX], want[PATH_MAX];

	(void)state;
	assert_non_null(realpath(argv0, want));
	assert_int_equal(osdep_self_exe(argv0, got, sizeof got), 0);
	assert_string_equal(got, want);
}

/* Pins: a connect by a name in a directory reached through its
 * descriptor, however long the directory's path (more than a
 * sun_path holds), the working directory left as it was; a name that is
 * no socket is refused. */
static void
test_connect_at(void **state)
{
	char			 dir[PATH_MAX], cwd[PATH_MAX], after[PATH_MAX];
	struct sockaddr_un	 sa;
	int			 dfd, lfd, fd, afd, i, home;
	size_t			 len;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(dir, sizeof dir, "/tmp/progmux-osdep-XXXXXX");
	assert_non_null(mkdtemp(dir));
	len = strlen(dir);
	for (i = 0; i < 4; i++) {
		snprintf(dir + strlen(dir), sizeof dir - strlen(dir),
		    "/%s", "a-directory-name-of-thirty-chars");
		assert_int_equal(mkdir(dir, 0700), 0);
	}
	assert_true(strlen(dir) + 2 > sizeof sa.sun_path);
	assert_int_not_equal((dfd = open(dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)), -1);
	/* The listener, bound by a short name from inside. */
	assert_int_not_equal((home = open(".", O_RDONLY | O_CLOEXEC)), -1);
	assert_int_equal(fchdir(dfd), 0);
	assert_int_not_equal((lfd = socket(AF_UNIX, SOCK_STREAM, 0)), -1);
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, "s");
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(fchdir(home), 0);
	close(home);
	assert_int_not_equal((fd = socket(AF_UNIX, SOCK_STREAM, 0)), -1);
	assert_int_equal(osdep_connect_at(fd, dfd, "s"), 0);
	assert_int_not_equal((afd = accept(lfd, NULL, NULL)), -1);
	assert_int_equal(write(fd, "k", 1), 1);
	assert_int_equal(read_byte(afd), 'k');
	close(afd);
	close(fd);
	assert_int_not_equal((fd = socket(AF_UNIX, SOCK_STREAM, 0)), -1);
	assert_int_equal(osdep_connect_at(fd, dfd, "nothing"), -1);
	close(fd);
	assert_non_null(getcwd(after, sizeof after));
	assert_string_equal(after, cwd);
	close(lfd);
	assert_int_equal(unlinkat(dfd, "s", 0), 0);
	close(dfd);
	while (strlen(dir) > len) {
		assert_int_equal(rmdir(dir), 0);
		*strrchr(dir, '/') = '\0';
	}
	assert_int_equal(rmdir(dir), 0);
}

/*
 * The child's side of test_connect_cwd: as nobody (if root, for whom
 * every directory is readable), a listener in top/sock; then from
 * top/cwd, made unreadable (0311), a connect to it in the directory.
 * Exits 0 if it connects and the working directory is still top/cwd,
 * 2 if an unreadable working directory cannot be had here, 1 else.
 */
static void __attribute__((noreturn))
connect_cwd_child(const char *top)
{
	struct sockaddr_un	sa;
	struct stat		before, after;
	char			path[PATH_MAX];
	int			lfd, dfd, fd;

	if (geteuid() == 0 && (setgid(65534) == -1 || setuid(65534) == -1))
		_exit(2);
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s/sock/s", top);
	snprintf(path, sizeof path, "%s/sock", top);
	if ((lfd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof sa) == -1 ||
	    listen(lfd, 4) == -1 ||
	    (dfd = open(path, O_RDONLY | O_DIRECTORY)) == -1)
		_exit(1);
	snprintf(path, sizeof path, "%s/cwd", top);
	if (chdir(path) == -1 || chmod(".", 0311) == -1 ||
	    stat(".", &before) == -1)
		_exit(1);
	if ((fd = open(".", O_RDONLY)) != -1)
		_exit(2);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    osdep_connect_at(fd, dfd, "s") == -1 || stat(".", &after) == -1 ||
	    before.st_ino != after.st_ino || before.st_dev != after.st_dev)
		_exit(1);
	_exit(0);
}

/* Pins: a connect in the directory works from a working directory we
 * may enter but not read (a folder the person's system keeps us from
 * listing), which is left as it was. */
static void
test_connect_cwd(void **state)
{
	char	top[] = "/tmp/progmux-osdep-XXXXXX", path[PATH_MAX];
	int	st;
	pid_t	pid;

	(void)state;
	assert_non_null(mkdtemp(top));
	assert_int_equal(chmod(top, 0711), 0);
	snprintf(path, sizeof path, "%s/sock", top);
	assert_int_equal(mkdir(path, 0700), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(path, 65534, 65534), 0);
	snprintf(path, sizeof path, "%s/cwd", top);
	assert_int_equal(mkdir(path, 0700), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(path, 65534, 65534), 0);
	if ((pid = fork()) == 0)
		connect_cwd_child(top);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(chmod(path, 0700), 0);
	snprintf(path, sizeof path, "rm -rf '%s'", top);
	assert_int_equal(system(path), 0);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 2) {
		print_message("skipped: no working directory that cannot be "
		    "read can be had here\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* In the child: send SIGUSR2 to our parent. */
static void
signal_parent(void *arg)
{
	(void)arg;
	kill(getppid(), SIGUSR2);
}

/* Pins: signals arrive on a close-on-exec, non-blocking descriptor,
 * each one (ours, a child's kill, the child's exit); none waits after
 * they are read. */
static void
test_signals(void **state)
{
	sigset_t	set, old;
	int		fd, signo, tell, hold, seen_usr1 = 0, seen_usr2 = 0,
			seen_chld = 0;
	pid_t		pid;
	int64_t		deadline;

	(void)state;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	assert_int_not_equal((fd = osdep_signals(&set)), -1);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	kill(getpid(), SIGUSR1);
	pid = child(signal_parent, NULL, &tell, &hold);
	close(hold);		/* it exits: SIGCHLD */
	deadline = now_ms() + WAIT_MS;
	while ((!seen_usr1 || !seen_usr2 || !seen_chld) &&
	    readable(fd, poll_timeout(deadline))) {
		while (osdep_signal_next(fd, &signo)) {
			if (signo == SIGUSR1)
				seen_usr1 = 1;
			else if (signo == SIGUSR2)
				seen_usr2 = 1;
			else if (signo == SIGCHLD)
				seen_chld = 1;
		}
	}
	assert_true(seen_usr1 && seen_usr2 && seen_chld);
	assert_int_equal(osdep_signal_next(fd, &signo), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	close(tell);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Pins: where the port has it, a range marked close-on-exec, then one
 * closed, and nothing outside either; elsewhere -1, ENOSYS. */
static void
test_close_range(void **state)
{
	int	p[2], fd;

	(void)state;
	assert_int_equal(compat_pipe2(p, 0), 0);
	for (fd = 100; fd <= 105; fd++)
		assert_int_equal(dup2(p[0], fd), fd);
	close(p[0]);
	close(p[1]);
	if (!(osdep_features() & OSDEP_CLOSE_RANGE)) {
		errno = 0;
		assert_int_equal(osdep_close_range(100, 102, 1), -1);
		assert_int_equal(errno, ENOSYS);
		for (fd = 100; fd <= 105; fd++)
			close(fd);
		return;
	}
	assert_int_equal(osdep_close_range(100, 102, 1), 0);
	for (fd = 100; fd <= 105; fd++)
		assert_int_equal(!!(fcntl(fd, F_GETFD) & FD_CLOEXEC),
		    fd <= 102);
	assert_int_equal(osdep_close_range(101, 104, 0), 0);
	for (fd = 100; fd <= 105; fd++)
		assert_int_equal(fcntl(fd, F_GETFD) == -1, fd >= 101 &&
		    fd <= 104);
	close(100);
	close(105);
}

/* Pins: a child's exit descriptor is not readable while it runs, becomes
 * readable (not POLLNVAL) once it has exited, zombie or reaped, and
 * stays so; it is close-on-exec; a reaped pid is ESRCH. */
static void
test_pidfd(void **state)
{
	int	tell, hold, fd, z;
	pid_t	pid;

	(void)state;
	pid = child(NULL, NULL, &tell, &hold);
	assert_int_not_equal((fd = osdep_pidfd(pid)), -1);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_false(readable(fd, 0));
	close(hold);
	assert_true(readable(fd, WAIT_MS));	/* a zombie now */
	assert_true(readable(fd, 0));
	/* Asked of a zombie: ESRCH, or readable at once. */
	if ((z = osdep_pidfd(pid)) == -1) {
		assert_int_equal(errno, ESRCH);
		print_message("exit descriptor of a zombie: ESRCH\n");
	} else {
		assert_true(readable(z, 0));
		print_message("exit descriptor of a zombie: readable\n");
		close(z);
	}
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_true(readable(fd, 0));
	close(fd);
	close(tell);
	errno = 0;
	assert_int_equal(osdep_pidfd(pid), -1);
	assert_int_equal(errno, ESRCH);
}

/* In the child: fork a grandchild that says its pid on the pipe arg
 * names and waits for its stdin to end; reap it, then exit. */
static void
grandchild(void *arg)
{
	int	*p = arg, st;
	char	c;
	pid_t	gc;

	if ((gc = fork()) == 0) {
		gc = getpid();
		(void)!write(p[1], &gc, sizeof gc);
		while (read(0, &c, 1) == -1 && errno == EINTR)
			;
		_exit(0);
	}
	if (gc > 0)
		waitpid(gc, &st, 0);
	_exit(0);
}

/* Pins: the exit descriptor of a process that is not our child (a
 * grandchild) becomes readable when it exits. */
static void
test_pidfd_not_child(void **state)
{
	int	p[2], in[2], fd;
	pid_t	pid, gc;

	(void)state;
	assert_int_equal(compat_pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(compat_pipe2(in, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		close(in[1]);
		close(p[0]);
		grandchild(p);
	}
	close(p[1]);
	close(in[0]);
	assert_true(readable(p[0], WAIT_MS));
	assert_int_equal(read(p[0], &gc, sizeof gc), (ssize_t)sizeof gc);
	assert_int_not_equal((fd = osdep_pidfd(gc)), -1);
	assert_false(readable(fd, 0));
	close(in[1]);		/* its stdin ends: it exits */
	assert_true(readable(fd, WAIT_MS));
	close(fd);
	close(p[0]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

/* Pins: a child's watch of its parent (us, then a child of ours that
 * exits) becomes readable when that parent dies; a pid that is not the
 * parent is ESRCH. */
static void
test_parent_watch(void **state)
{
	int	p[2], q[2], fd;
	char	c;
	pid_t	mid, gc;

	(void)state;
	errno = 0;
	assert_int_equal(osdep_parent_watch(getpid()), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(compat_pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(compat_pipe2(q, O_CLOEXEC), 0);
	if ((mid = fork()) == 0) {
		/* The middle one: a child that watches it, then it goes. */
		close(p[0]);
		if ((gc = fork()) == 0) {
			pid_t	parent = getppid();

			close(q[0]);
			if ((fd = osdep_parent_watch(parent)) == -1)
				_exit(1);
			(void)!write(p[1], "w", 1);
			close(q[1]);	/* the middle one may go */
			if (readable(fd, WAIT_MS))
				(void)!write(p[1], "d", 1);
			_exit(0);
		}
		close(p[1]);
		close(q[1]);
		while (read(q[0], &c, 1) == -1 && errno == EINTR)
			;
		_exit(0);
	}
	close(q[0]);
	close(q[1]);
	close(p[1]);
	assert_int_equal(read_byte(p[0]), 'w');
	assert_int_equal(waitpid(mid, NULL, 0), mid);
	assert_int_equal(read_byte(p[0]), 'd');
	close(p[0]);
}

/*
 * Pins: where the port has a subreaper, an orphan below a subreaper is
 * reparented to it; elsewhere ENOSYS. And where it has a parent-death
 * signal, the signal comes when the parent dies; elsewhere ENOSYS. Each
 * in a child of ours, so that we stay as we were.
 */
static void
test_subreaper_and_parent_death(void **state)
{
	int	p[2], q[2], st, f = osdep_features();
	pid_t	pid, gc, ggc;
	char	c;

	(void)state;
	assert_int_equal(compat_pipe2(p, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (osdep_subreaper() == -1) {
			c = errno == ENOSYS ? 'n' : 'e';
			(void)!write(p[1], &c, 1);
		} else if ((gc = fork()) == 0) {
			if ((ggc = fork()) == 0) {
				/* Orphaned once gc exits. */
				while (getppid() == gc)
					poll(NULL, 0, 1);
				_exit(0);
			}
			_exit(0);
		} else {
			/* gc reaped, its orphan must come to us. */
			waitpid(gc, NULL, 0);
			c = wait(NULL) > 0 ? 'y' : 'o';
			(void)!write(p[1], &c, 1);
			while (wait(NULL) > 0)
				;
		}
		_exit(0);
	}
	close(p[1]);
	c = (char)read_byte(p[0]);
	close(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (f & OSDEP_SUBREAPER)
		assert_int_equal(c, 'y');
	else
		assert_int_equal(c, 'n');

	/* The parent-death signal: the middle process goes, its child
	 * hears SIGUSR1 and says so. */
	assert_int_equal(compat_pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(compat_pipe2(q, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		sigset_t	set;
		int		sig;

		close(p[0]);
		if ((gc = fork()) == 0) {
			close(q[0]);
			sigemptyset(&set);
			sigaddset(&set, SIGUSR1);
			sigprocmask(SIG_BLOCK, &set, NULL);
			if (osdep_parent_death(SIGUSR1, getppid()) == -1) {
				c = errno == ENOSYS ? 'n' : 'e';
				(void)!write(p[1], &c, 1);
				_exit(0);
			}
			(void)!write(p[1], "w", 1);
			close(q[1]);	/* the middle one may go */
			c = sigwait(&set, &sig) == 0 && sig == SIGUSR1 ?
			    'y' : 'e';
			(void)!write(p[1], &c, 1);
			_exit(0);
		}
		close(p[1]);
		close(q[1]);
		while (read(q[0], &c, 1) == -1 && errno == EINTR)
			;
		_exit(0);	/* once the child has asked (or failed) */
	}
	close(q[0]);
	close(q[1]);
	close(p[1]);
	c = (char)read_byte(p[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (f & OSDEP_PARENT_DEATH) {
		assert_int_equal(c, 'w');
		assert_int_equal(read_byte(p[0]), 'y');
	} else
		assert_int_equal(c, 'n');
	close(p[0]);
}

/* In the child: two children of its own, one of them with a child. */
static void
tree(void *arg)
{
	(void)arg;
	if (setpgid(0, 0) == -1)
		_exit(3);
	if (fork() == 0) {
		if (fork() == 0)
			pause();
		pause();
	}
	if (fork() == 0)
		pause();
}

/* How many of root's descendants are left, waited for to reach want. */
static int
descendants_reach(pid_t root, int want)
{
	int64_t	deadline = now_ms() + WAIT_MS;
	int	n;

	while ((n = osdep_signal_descendants(root, 0)) != want &&
	    now_ms() < deadline)
		poll(NULL, 0, 10);
	return (n);
}

/* Pins: the walk finds every descendant (not root), counts without a
 * signal, and SIGKILL to them leaves root alone; the group walk finds
 * the group's processes but not us. */
static void
test_walks(void **state)
{
	struct osdep_proc	p;
	int			tell, hold;
	pid_t			pid;

	(void)state;
	pid = child(tree, NULL, &tell, &hold);
	assert_int_equal(descendants_reach(pid, 3), 3);
	assert_int_equal(osdep_signal_descendants(getpid(), 0) >= 4, 1);
	/* The group: the child and its three. */
	assert_int_equal(osdep_signal_group_session(pid, 0, 0), 4);
	assert_int_equal(osdep_signal_group_session(0, 0, 0), 0);
	assert_int_equal(osdep_signal_descendants(pid, SIGKILL), 3);
	/* Killed, they are zombies of their parents, then gone: none
	 * counted. */
	assert_int_equal(descendants_reach(pid, 0), 0);
	assert_int_equal(osdep_proc(pid, &p), 0);
	end_child(pid);
	close(tell);
	close(hold);
}

/* In the child: a session of its own, with two children. */
static void
session(void *arg)
{
	(void)arg;
	if (setsid() == -1)
		_exit(3);
	if (fork() == 0) {
		setpgid(0, 0);	/* another group, the same session */
		pause();
	}
	if (fork() == 0)
		pause();
}

/* Pins: the session walk finds every process of a session (in more
 * than one group), and SIGKILL ends them all. */
static void
test_session_walk(void **state)
{
	int	tell, hold;
	int64_t	deadline;
	pid_t	pid;

	(void)state;
	pid = child(session, NULL, &tell, &hold);
	deadline = now_ms() + WAIT_MS;
	while (osdep_signal_group_session(0, pid, 0) != 3 &&
	    now_ms() < deadline)
		poll(NULL, 0, 10);
	assert_int_equal(osdep_signal_group_session(0, pid, 0), 3);
	assert_int_equal(osdep_signal_group_session(0, pid, SIGKILL), 3);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	close(tell);
	close(hold);
	deadline = now_ms() + WAIT_MS;
	while (osdep_signal_group_session(0, pid, 0) != 0 &&
	    now_ms() < deadline)
		poll(NULL, 0, 10);
	assert_int_equal(osdep_signal_group_session(0, pid, 0), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port),
		cmocka_unit_test(test_proc),
		cmocka_unit_test(test_proc_tty),
		cmocka_unit_test(test_pty_hangup),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_procargs),
		cmocka_unit_test(test_self_exe),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_unswept_dir),
		cmocka_unit_test(test_connect_at),
		cmocka_unit_test(test_connect_cwd),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_close_range),
		cmocka_unit_test(test_pidfd),
		cmocka_unit_test(test_pidfd_not_child),
		cmocka_unit_test(test_parent_watch),
		cmocka_unit_test(test_subreaper_and_parent_death),
		cmocka_unit_test(test_walks),
		cmocka_unit_test(test_session_walk),
	};

	(void)argc;
	argv0 = argv[0];
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
