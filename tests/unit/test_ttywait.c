/*
 * test_ttywait.c — waiting for the keyboard, seen from /proc
 * (common/ttywait.c).
 *
 * Each case builds what a pane is: a pseudo-terminal whose session leader
 * (the "launcher") hands the terminal's foreground to a child in its own
 * process group (the "program"), which then blocks in one way. The
 * launcher's pid is what ttywait_check() is given, as in the reaper. A
 * program reading its terminal by read, select, poll, epoll or /dev/tty
 * must read as waiting; one sleeping, polling a pipe, waiting on an epoll
 * set without the terminal, or computing must not. Each "not waiting" case
 * first waits until the program really sleeps in the expected call, so
 * the answer is about that call and not about the set-up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "timeutil.h"
#include "ttywait.h"

enum tw_mode {
	TW_READ, TW_SELECT, TW_POLL, TW_EPOLL, TW_DEVTTY,
	TW_SLEEP, TW_POLL_PIPE, TW_EPOLL_PIPE, TW_BUSY
};

struct tw {
	int	master;
	pid_t	launcher;
	pid_t	program;
};

/* The program's part: wait for the terminal's foreground, then block. */
static void __attribute__((noreturn))
tw_program(enum tw_mode mode)
{
	struct pollfd		pfd;
	struct epoll_event	ev = { .events = EPOLLIN };
	fd_set			set;
	char			c;
	int			p[2], ep, fd;
	struct timespec		ts = { 60, 0 };

	while (tcgetpgrp(0) != getpgrp())
		usleep(1000);
	if (pipe(p) == -1)
		_exit(1);
	switch (mode) {
	case TW_READ:
		(void)read(0, &c, 1);
		break;
	case TW_SELECT:
		FD_ZERO(&set);
		FD_SET(0, &set);
		select(1, &set, NULL, NULL, NULL);
		break;
	case TW_POLL:
		pfd = (struct pollfd){ 0, POLLIN, 0 };
		poll(&pfd, 1, -1);
		break;
	case TW_EPOLL:
	case TW_EPOLL_PIPE:
		ep = epoll_create1(0);
		epoll_ctl(ep, EPOLL_CTL_ADD, mode == TW_EPOLL ? 0 : p[0], &ev);
		epoll_wait(ep, &ev, 1, -1);
		break;
	case TW_DEVTTY:
		if ((fd = open("/dev/tty", O_RDONLY)) != -1)
			(void)read(fd, &c, 1);
		break;
	case TW_SLEEP:
		nanosleep(&ts, NULL);
		break;
	case TW_POLL_PIPE:
		pfd = (struct pollfd){ p[0], POLLIN, 0 };
		poll(&pfd, 1, -1);
		break;
	case TW_BUSY:
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	_exit(0);
}

/* A terminal, its session leader and a program in the foreground. */
static void
tw_start(struct tw *t, enum tw_mode mode)
{
	int	 rp[2], slave;
	pid_t	 prog;
	char	*name;

	assert_true((t->master = posix_openpt(O_RDWR | O_NOCTTY |
	    O_CLOEXEC)) != -1);
	assert_int_equal(grantpt(t->master), 0);
	assert_int_equal(unlockpt(t->master), 0);
	assert_non_null(name = ptsname(t->master));
	assert_int_equal(pipe2(rp, O_CLOEXEC), 0);
	if ((t->launcher = fork()) == 0) {
		setsid();
		if ((slave = open(name, O_RDWR)) == -1)	/* our terminal now */
			_exit(1);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		signal(SIGTTOU, SIG_IGN);
		if ((prog = fork()) == 0) {
			setpgid(0, 0);
			tw_program(mode);
		}
		setpgid(prog, prog);
		tcsetpgrp(0, prog);
		(void)write(rp[1], &prog, sizeof prog);
		for (;;)
			pause();
	}
	assert_true(t->launcher > 0);
	close(rp[1]);
	assert_int_equal(read(rp[0], &t->program, sizeof t->program),
	    sizeof t->program);
	close(rp[0]);
}

static void
tw_stop(struct tw *t)
{
	kill(t->program, SIGKILL);
	kill(t->launcher, SIGKILL);
	waitpid(t->launcher, NULL, 0);
	close(t->master);
}

/* Wait until the program sleeps in system call nr (-1: runs). */
static bool
tw_wait_call(pid_t pid, long nr)
{
	char	path[64], buf[256];
	int64_t	deadline = now_ms() + 10000;
	FILE	*f;
	long	got;

	snprintf(path, sizeof path, "/proc/%ld/syscall", (long)pid);
	while (now_ms() < deadline) {
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(buf, sizeof buf, f) != NULL) {
				if (nr == -1 && strncmp(buf, "running", 7) == 0) {
					fclose(f);
					return (true);
				}
				if (sscanf(buf, "%ld", &got) == 1 && got == nr) {
					fclose(f);
					return (true);
				}
			}
			fclose(f);
		}
		usleep(2000);
	}
	return (false);
}

/* It must come to read as waiting (it gets there in a moment). */
static void
tw_expect_yes(enum tw_mode mode)
{
	struct tw	t;
	int64_t		deadline;
	enum ttywait	w = TTYWAIT_NO;

	tw_start(&t, mode);
	deadline = now_ms() + 10000;
	while (now_ms() < deadline && (w = ttywait_check(t.launcher)) !=
	    TTYWAIT_YES)
		usleep(2000);
	tw_stop(&t);
	assert_int_equal(w, TTYWAIT_YES);
}

/* Once it sleeps in call nr, it must not read as waiting. */
static void
tw_expect_no(enum tw_mode mode, long nr)
{
	struct tw	t;
	bool		there;
	enum ttywait	w1, w2;

	tw_start(&t, mode);
	there = tw_wait_call(t.program, nr);
	w1 = ttywait_check(t.launcher);
	w2 = ttywait_check(t.program);
	tw_stop(&t);
	assert_true(there);
	assert_int_equal(w1, TTYWAIT_NO);
	assert_int_equal(w2, TTYWAIT_NO);
}

static void test_read(void **s) { (void)s; tw_expect_yes(TW_READ); }
static void test_select(void **s) { (void)s; tw_expect_yes(TW_SELECT); }
static void test_poll(void **s) { (void)s; tw_expect_yes(TW_POLL); }
static void test_epoll(void **s) { (void)s; tw_expect_yes(TW_EPOLL); }
static void test_devtty(void **s) { (void)s; tw_expect_yes(TW_DEVTTY); }

static void
test_sleep(void **s)
{
	(void)s;
	tw_expect_no(TW_SLEEP, SYS_clock_nanosleep);
}

static void
test_poll_pipe(void **s)
{
	(void)s;
#ifdef SYS_poll
	tw_expect_no(TW_POLL_PIPE, SYS_poll);
#else
	tw_expect_no(TW_POLL_PIPE, SYS_ppoll);
#endif
}

static void
test_epoll_pipe(void **s)
{
	(void)s;
#ifdef SYS_epoll_wait
	tw_expect_no(TW_EPOLL_PIPE, SYS_epoll_wait);
#else
	tw_expect_no(TW_EPOLL_PIPE, SYS_epoll_pwait);
#endif
}

static void
test_busy(void **s)
{
	(void)s;
	tw_expect_no(TW_BUSY, -1);
}

/* No process, or one without a terminal: not waiting. */
static void
test_no_terminal(void **s)
{
	(void)s;
	assert_int_equal(ttywait_check(0), TTYWAIT_NO);
	assert_int_equal(ttywait_check(-1), TTYWAIT_NO);
	assert_int_equal(ttywait_check(4194304 + 1), TTYWAIT_NO);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_poll),
		cmocka_unit_test(test_epoll),
		cmocka_unit_test(test_devtty),
		cmocka_unit_test(test_sleep),
		cmocka_unit_test(test_poll_pipe),
		cmocka_unit_test(test_epoll_pipe),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_no_terminal),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
