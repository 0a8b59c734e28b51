/*
 * timeutil.c — clocks and poll timeouts (see timeutil.h).
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "timeutil.h"

int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(TIMEUTIL_CLOCK, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int64_t
now_us(void)
{
	struct timespec	ts;

	clock_gettime(TIMEUTIL_CLOCK, &ts);
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

/* Wall-clock ms as ISO 8601 in UTC, "2026-12-04T10:30:00.123Z". */
void
realtime_iso(char *buf, size_t size, int64_t ms)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	gmtime_r(&t, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}
