/*
 * main.c — bench_progmux: progmux measured against the limits tmux itself
 * sets, as ratios taken in one run on one private tmux server; the groups
 * of figures run in turn, then the table and the JSON.
 *
 *	bench_progmux [--smoke] [--strip-json FILE] [--json-out FILE]
 *	    [--no-page BIN]
 *	bench_progmux --stamp MS	(helper: sleep, print CLOCK_REALTIME ns)
 *	bench_progmux --listen [exit]	(helper: listen on a port of 127.0.0.1)
 *	bench_progmux --tree N K	(helper: N children holding K sockets)
 *
 * BENCH_SMOKE=1 is --smoke; BENCH_RUNS and BENCH_TP_RUNS set the number of
 * samples; BENCH_ONLY=latency,cold,throughput,memory,scale,agent,ports,
 * output,hosts,adopt picks groups (latency.c, throughput.c, scale.c,
 * agent.c with agent_reads.c, ports.c, output.c, hosts.c, adopt.c).
 * --no-page names the build without ask_user_secret's page that figure
 * 7b holds a cold start against (make bench builds it).
 *
 * Prints a table on stdout and writes the same figures as JSON. A slow
 * machine never fails it: it exits 0 whatever the figures, and 1 only when
 * the harness broke (progmux did not answer, a line was missing or out of
 * order, tmux refused a baseline command).
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "client.h"
#include "compat.h"
#include "json.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"

#include "bench.h"

struct sizes	 sz;
bool		 smoke;
char		 self_exe[PATH_MAX];

static const struct sizes full_sizes = { 20, 20, 3000000, 100, 200, 1000,
	500, 20 };
static const struct sizes smoke_sizes = { 3, 2, 30000, 10, 10, 1000,
	200, 3 };

/* Is this group of figures wanted? BENCH_ONLY=latency,throughput,... */
static bool
bench_wanted(const char *group)
{
	const char	*only = getenv("BENCH_ONLY");

	return (only == NULL || *only == '\0' || strstr(only, group) != NULL);
}

/*
 * The helper the wake figure starts: sleep, print the time, and stay a
 * while (stop_program ends it), so the read wakes on a lone line and not
 * on the program's end.
 */
static int
stamp_main(const char *ms)
{
	char	line[32];
	int	n;

	sleep_ms(atoi(ms));
	n = snprintf(line, sizeof line, "%lld\n", (long long)realtime_ns());
	if (write(1, line, (size_t)n) != n)
		return (1);
	sleep_ms(2000);
	return (0);
}

/*
 * The port figures' helpers: --listen listens on 127.0.0.1 (a port of the
 * kernel's choosing), says so, and stays, or with "exit" leaves; --tree
 * N K also forks N children that each hold K sockets, and says "tree
 * ready" once they all do. Stopping the program ends them all.
 */
static int
listen_main(bool leave, int n, int k)
{
	struct sockaddr_in	sin;
	int			fd, p[2], i, j;
	char			c;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    listen(fd, 4) == -1 || pipe(p) == -1)
		return (1);
	for (i = 0; i < n; i++) {
		if (fork() != 0)
			continue;
		close(p[0]);
		for (j = 0; j < k; j++)
			(void)socket(AF_INET, SOCK_STREAM, 0);
		(void)!write(p[1], "x", 1);
		for (;;)
			pause();
	}
	close(p[1]);
	for (i = 0; i < n; i++)
		if (read(p[0], &c, 1) != 1)
			return (1);
	printf("%s\n", n > 0 ? "tree ready" : "listening");
	fflush(stdout);
	if (leave)
		return (0);
	for (;;)
		pause();
}

/* Run every figure; print the table; write the JSON. */
int
main(int argc, char **argv)
{
	const char	*strip_json = NULL, *json_out = "build/bench.json";
	const char	*no_page = NULL;
	char		*tmuxv, *commit, nproc[16];
	cpu_set_t	 cpus;
	int64_t		 t0;
	double		 secs;
	int		 i;

	if (argc == 3 && strcmp(argv[1], "--stamp") == 0)
		return (stamp_main(argv[2]));
	if (argc >= 2 && strcmp(argv[1], "--listen") == 0)
		return (listen_main(argc == 3, 0, 0));
	if (argc == 4 && strcmp(argv[1], "--tree") == 0)
		return (listen_main(false, atoi(argv[2]), atoi(argv[3])));
	smoke = getenv("BENCH_SMOKE") != NULL &&
	    strcmp(getenv("BENCH_SMOKE"), "0") != 0;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--smoke") == 0)
			smoke = true;
		else if (strcmp(argv[i], "--strip-json") == 0 && i + 1 < argc)
			strip_json = argv[++i];
		else if (strcmp(argv[i], "--json-out") == 0 && i + 1 < argc)
			json_out = argv[++i];
		else if (strcmp(argv[i], "--no-page") == 0 && i + 1 < argc)
			no_page = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--smoke] [--strip-json "
			    "FILE] [--json-out FILE] [--no-page BIN]\n",
			    argv[0]);
			return (2);
		}
	}
	sz = smoke ? smoke_sizes : full_sizes;
	if (getenv("BENCH_RUNS") != NULL && atoi(getenv("BENCH_RUNS")) > 0)
		sz.runs = sz.cold_runs = atoi(getenv("BENCH_RUNS"));
	if (getenv("BENCH_TP_RUNS") != NULL &&
	    atoi(getenv("BENCH_TP_RUNS")) > 0)
		sz.tp_runs = atoi(getenv("BENCH_TP_RUNS"));
	if (realpath("/proc/self/exe", self_exe) == NULL) {
		fprintf(stderr, "bench: cannot find my own path\n");
		return (1);
	}
	if (access("build/progmux", X_OK) == -1) {
		fprintf(stderr, "bench: run from the repository root after "
		    "`make all`\n");
		return (1);
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, bench_signal);
	signal(SIGTERM, bench_signal);
	signal(SIGHUP, bench_signal);
	unsetenv("TMUX");

	t0 = now_us();
	if (bench_wanted("latency"))
		bench_latency();
	if (bench_wanted("cold"))
		bench_cold_page(no_page);
	if (bench_wanted("throughput"))
		bench_throughput();
	if (bench_wanted("memory"))
		bench_front_rss();
	if (bench_wanted("scale"))
		bench_scale();
	if (bench_wanted("agent"))
		bench_agent();
	if (bench_wanted("ports"))
		bench_ports();
	if (bench_wanted("output"))
		bench_output();
	if (bench_wanted("hosts"))
		bench_hosts();
	if (bench_wanted("adopt"))
		bench_adopt();
	bench_strip_figures(strip_json);
	secs = (double)(now_us() - t0) / 1e6;

	CPU_ZERO(&cpus);
	snprintf(nproc, sizeof nproc, "%d",
	    sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) :
	    (int)sysconf(_SC_NPROCESSORS_ONLN));
	tmuxv = cmd_line("tmux -V 2>/dev/null");
	if (strncmp(tmuxv, "tmux ", 5) == 0)
		memmove(tmuxv, tmuxv + 5, strlen(tmuxv + 5) + 1);
	commit = cmd_line("git rev-parse HEAD 2>/dev/null");
	print_table(nproc, tmuxv, commit);
	printf("\n%s took %.1f s; JSON in %s\n", smoke ? "bench-smoke" :
	    "bench", secs, json_out);
	if (write_json(json_out, nproc, tmuxv, commit, secs) == -1) {
		fprintf(stderr, "bench: cannot write %s\n", json_out);
		broke = true;
	}
	free(tmuxv);
	free(commit);
	return (broke ? 1 : 0);
}
