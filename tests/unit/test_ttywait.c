/*
 * test_ttywait.c — waiting for the keyboard, seen from /proc
 * (server/ttywait-linux.c: ttywait_check).
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
 *
 * A check's work is bounded whatever the program holds: with thousands
 * of threads, or an epoll set of thousands of descriptors with the
 * terminal among them, it still finds the wait (or says it cannot tell),
 * never "not waiting", within TTYWAIT_BUDGET /proc files and a few
 * milliseconds of CPU.
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
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "timeutil.h"
#include "needs.h"
#include "ttywait.h"

enum tw_mode {
	TW_READ, TW_SELECT, TW_POLL, TW_EPOLL, TW_DEVTTY,
	TW_SLEEP, TW_POLL_PIPE, TW_EPOLL_PIPE, TW_BUSY,
	TW_THREADS_MAIN,	/* many sleeping threads, the main one reads */
	TW_THREADS_LAST,	/* many sleeping threads, the last one reads */
	TW_EPOLL_MANY,		/* thousands of pipes, then the terminal */
	TW_EPOLL_MANY_PIPES,	/* the same without the terminal */
	TW_EPOLL_LONG		/* 1000 descriptors, then a terminal's */
};

#define TW_THREADS	5000	/* threads of the many-threads cases */
#define TW_PIPES	1500	/* 3000 descriptors before the terminal */
#define TW_PIPES_LONG	500	/* 1000: a listing far over 16 KiB */
/*
 * A check's CPU time, at most. Before checks had a budget, one of 5000
 * sleeping threads took 70-80 ms of CPU here (the 20,000 kept the
 * front 89 % busy); a bounded one takes 0.5 ms, and an epoll listing of
 * 1000 entries about 1.5 ms (the kernel makes it whole on the first
 * read). 15 ms is ten times the latter and far from the old cost; it is
 * CPU time, not wall time, so a loaded machine does not make it fail.
 */
#define TW_CHECK_CPU_US	15000

struct tw {
	int	master;
	pid_t	launcher;
	pid_t	program;
};

/* A thread that sleeps until the program is killed. */
static void *
tw_sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return (NULL);
}

/* The thread that reads the terminal. */
static void *
tw_reader(void *arg)
{
	char	c;

	(void)arg;
	(void)read(0, &c, 1);
	return (NULL);
}

/* Start TW_THREADS threads with small stacks; the last reads the
 * terminal if reader. */
static void
tw_threads(bool reader)
{
	pthread_attr_t	attr;
	pthread_t	t;
	int		i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < TW_THREADS; i++) {
		if (pthread_create(&t, &attr, reader && i == TW_THREADS - 1 ?
		    tw_reader : tw_sleeper, NULL) != 0)
			_exit(1);
	}
	pthread_attr_destroy(&attr);
}

/* An epoll set of npipes pipes (both ends, for input), then the
 * terminal if tty; wait on it. */
static void
tw_epoll_many(int npipes, bool tty)
{
	struct epoll_event	ev = { .events = EPOLLIN };
	struct rlimit		rl;
	int			ep, p[2], i;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <
	    (rlim_t)(2 * npipes + 64)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	ep = epoll_create1(0);
	for (i = 0; i < npipes; i++) {
		if (pipe(p) == -1)
			_exit(1);
		epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
		epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &(struct epoll_event){
		    .events = EPOLLIN });
	}
	if (tty)
		epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
	epoll_wait(ep, &ev, 1, -1);
}

/* TW_PIPES_LONG pipes, then the terminal opened again (a file of its
 * own, newer than the pipes', so late in the listing); wait on them. */
static void
tw_epoll_long(void)
{
	struct epoll_event	ev = { .events = EPOLLIN };
	int			ep, p[2], i, tty;

	ep = epoll_create1(0);
	for (i = 0; i < TW_PIPES_LONG; i++) {
		if (pipe(p) == -1)
			_exit(1);
		epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
		epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &(struct epoll_event){
		    .events = EPOLLIN });
	}
	if ((tty = open("/proc/self/fd/0", O_RDONLY)) == -1)
		_exit(1);
	epoll_ctl(ep, EPOLL_CTL_ADD, tty, &ev);
	epoll_wait(ep, &ev, 1, -1);
}

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
	case TW_THREADS_MAIN:
	case TW_THREADS_LAST:
		tw_threads(mode == TW_THREADS_LAST);
		if (mode == TW_THREADS_MAIN)
			(void)read(0, &c, 1);
		else
			for (;;)
				pause();
		break;
	case TW_EPOLL_MANY:
	case TW_EPOLL_MANY_PIPES:
		tw_epoll_many(TW_PIPES, mode == TW_EPOLL_MANY);
		break;
	case TW_EPOLL_LONG:
		tw_epoll_long();
		break;
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

/* Where the kernel has no pause(2) (arm64), the call pause(3) sleeps in. */
#ifndef SYS_pause
#ifdef __GLIBC__
#define SYS_pause	SYS_rt_sigsuspend
#else
#define SYS_pause	SYS_ppoll
#endif
#endif

/* The call a C library may make instead of nr for the same wait: musl's
 * nanosleep(3) is nanosleep(2), its epoll_wait(2) is epoll_pwait(2). */
static long
tw_alias(long nr)
{
#ifdef SYS_nanosleep
	if (nr == SYS_clock_nanosleep)
		return (SYS_nanosleep);
#endif
#ifdef SYS_epoll_wait
	if (nr == SYS_epoll_wait)
		return (SYS_epoll_pwait);
#endif
	return (nr);
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
				if (sscanf(buf, "%ld", &got) == 1 && (got == nr ||
				    got == tw_alias(nr))) {
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

/* The CPU time (us) this thread has used. */
static int64_t
tw_cpu_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* Wait until /proc shows pid with at least n threads. */
static bool
tw_wait_threads(pid_t pid, long n)
{
	char	path[64], buf[4096], *p;
	int64_t	deadline = now_ms() + 20000;
	FILE	*f;
	long	got = 0;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	while (now_ms() < deadline && got < n) {
		if ((f = fopen(path, "r")) != NULL) {
			while (fgets(buf, sizeof buf, f) != NULL)
				if ((p = strstr(buf, "Threads:")) == buf)
					got = strtol(p + 8, NULL, 10);
			fclose(f);
		}
		if (got < n)
			usleep(5000);
	}
	return (got >= n);
}

/*
 * Once the program sleeps in call nr (its main thread; with threads, once
 * it has them all): three checks, each of which must give one of the
 * answers allowed (never one not allowed) within the budget and
 * TW_CHECK_CPU_US of CPU. The answer seen, for more.
 */
static enum ttywait
tw_expect_bounded(enum tw_mode mode, long nr, long threads, bool yes_ok,
    bool unknown_ok, bool no_ok)
{
	struct tw	t;
	bool		there, enough = true;
	enum ttywait	w[3];
	int64_t		cpu[3], t0;
	unsigned	cost[3];
	int		i;

	tw_start(&t, mode);
	if (threads > 0)
		enough = tw_wait_threads(t.program, threads);
	there = tw_wait_call(t.program, nr);
	for (i = 0; i < 3; i++) {
		t0 = tw_cpu_us();
		w[i] = ttywait_check(t.launcher);
		cpu[i] = tw_cpu_us() - t0;
		cost[i] = ttywait_cost();
	}
	tw_stop(&t);
	assert_true(enough);
	assert_true(there);
	for (i = 0; i < 3; i++) {
		print_message("check %d: %s, %u /proc files, %lld us CPU\n", i,
		    w[i] == TTYWAIT_YES ? "YES" : w[i] == TTYWAIT_NO ? "NO" :
		    "UNKNOWN", cost[i], (long long)cpu[i]);
		if ((w[i] == TTYWAIT_YES && !yes_ok) ||
		    (w[i] == TTYWAIT_UNKNOWN && !unknown_ok) ||
		    (w[i] == TTYWAIT_NO && !no_ok))
			fail_msg("check %d: answer %d not allowed", i, w[i]);
		if (cost[i] > TTYWAIT_BUDGET)
			fail_msg("check %d used %u /proc files, more than %d",
			    i, cost[i], TTYWAIT_BUDGET);
		if (cpu[i] > TW_CHECK_CPU_US)
			fail_msg("check %d took %lld us of CPU, more than %d",
			    i, (long long)cpu[i], TW_CHECK_CPU_US);
	}
	return (w[0]);
}

/* 5000 threads asleep, the main one reading the terminal: seen waiting
 * (its main thread is looked at first), cheaply. */
static void
test_threads_main(void **s)
{
	(void)s;
	tw_expect_bounded(TW_THREADS_MAIN, SYS_read, TW_THREADS + 1, true,
	    true, false);
}

/* 5000 threads asleep, the last one reading: waiting, or "cannot tell"
 * past the threads looked at, never "not waiting"; cheaply. */
static void
test_threads_last(void **s)
{
	(void)s;
	tw_expect_bounded(TW_THREADS_LAST, SYS_pause, TW_THREADS + 1, true,
	    true, false);
}

/* An epoll set of 3000 descriptors registered before the terminal (its
 * listing far longer than one read): waiting, or at worst "cannot
 * tell", never "not waiting". */
static void
test_epoll_many(void **s)
{
	(void)s;
#ifdef SYS_epoll_wait
	tw_expect_bounded(TW_EPOLL_MANY, SYS_epoll_wait, 0, true, true, false);
#else
	tw_expect_bounded(TW_EPOLL_MANY, SYS_epoll_pwait, 0, true, true,
	    false);
#endif
}

/* 1000 descriptors, then the terminal opened again, in a process of an
 * ordinary size: its listing (about 80 KiB) is read whole, and the
 * terminal found there. */
static void
test_epoll_long(void **s)
{
	(void)s;
#ifdef SYS_epoll_wait
	tw_expect_bounded(TW_EPOLL_LONG, SYS_epoll_wait, 0, true, false,
	    false);
#else
	tw_expect_bounded(TW_EPOLL_LONG, SYS_epoll_pwait, 0, true, false,
	    false);
#endif
}

/* The same 3000 pipes without the terminal: never "waiting". */
static void
test_epoll_many_pipes(void **s)
{
	(void)s;
#ifdef SYS_epoll_wait
	tw_expect_bounded(TW_EPOLL_MANY_PIPES, SYS_epoll_wait, 0, false, true,
	    true);
#else
	tw_expect_bounded(TW_EPOLL_MANY_PIPES, SYS_epoll_pwait, 0, false,
	    true, true);
#endif
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

/* Where the system cannot tell (ttywait-none.c) there is nothing here to
 * test: each test skips, saying why. */
static void
tw_cannot_tell(void **s)
{
	(void)s;
	PMX_NEED_TTYWAIT();
}

/* A test of the check, or its skip. */
#define TW_TEST(f)	{ #f, ttywait_can_tell() ? f : tw_cannot_tell, \
			    NULL, NULL, NULL }

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TW_TEST(test_read),
		TW_TEST(test_select),
		TW_TEST(test_poll),
		TW_TEST(test_epoll),
		TW_TEST(test_devtty),
		TW_TEST(test_sleep),
		TW_TEST(test_poll_pipe),
		TW_TEST(test_epoll_pipe),
		TW_TEST(test_busy),
		TW_TEST(test_no_terminal),
		TW_TEST(test_threads_main),
		TW_TEST(test_threads_last),
		TW_TEST(test_epoll_many),
		TW_TEST(test_epoll_long),
		TW_TEST(test_epoll_many_pipes),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
