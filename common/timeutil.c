/*
 * timeutil.c — clocks and poll timeouts (see timeutil.h).
 */
#include <limits.h>
#include <time.h>

#include "timeutil.h"

int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int64_t
now_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* CPU time this process has used: work done, whatever else runs. */
int64_t
cpu_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

int64_t
realtime_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int
poll_timeout(int64_t deadline)
{
	int64_t	now, left;

	if (deadline == DEADLINE_NONE)
		return (-1);
	now = now_ms();
	if (deadline <= now)
		return (0);
	left = deadline - now;
	if (left > INT_MAX)
		return (INT_MAX);
	return ((int)left);
}
