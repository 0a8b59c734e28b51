/*
 * bench.h — what the files of bench_progmux share: the figures, the sizes
 * of a run, the client loop, the control-mode client of the baselines and
 * the agent tasks' tally.
 *
 * Each group of figures gets a fresh harness from tests/client.c: a
 * private tmux server on a socket in a temporary directory (tmux -S, -f
 * /dev/null) and build/progmux on it. Baselines run on the same server in
 * the same run, interleaved with the progmux samples so both see the same
 * noise.
 */
#ifndef PROGMUX_BENCH_H
#define PROGMUX_BENCH_H

#define MIB		(1024.0 * 1024.0)
#define CALL_MS		30000	/* longest any one reply may take */

/* The figures to beat (a TypeScript tmux MCP server's). */
#define TS_COLD_MS	"390-450 ms"
#define TS_ECHO_MS	77.0
#define TS_IDLE_MB	88.0
#define TS_PEAK_MB	236.0
#define TS_LINE_MS	4.0
#define TS_MAX_OUT	"256 KiB"

/* Sizes: the full run, and the smoke run that only proves the harness. */
struct sizes {
	int	 runs;		/* samples per latency figure */
	int	 tp_runs;	/* throughput runs (each ~20 MB) */
	long	 seq_n;		/* seq 1 N */
	int	 live_mem;	/* live programs for the front's RSS */
	int	 live_scale;	/* live programs for the scale figure */
	int	 scale_lines;	/* lines each of them prints */
	int	 wake_ms;	/* how long the wake helper sleeps */
	int	 cold_runs;
};

/* Samples of one measure, in milliseconds (or MB/s). */
struct samples {
	double	*v;
	size_t	 n;
};

/* One row of the table. NAN means "none". */
struct fig {
	const char	*id;		/* key in the JSON */
	const char	*name;		/* label in the table */
	const char	*unit;
	double		 median, p90;
	double		 base_median, base_p90;
	const char	*base_what;	/* what the baseline is */
	double		 ratio;
	const char	*target;
	int		 met;		/* 1 yes, 0 no, -1 nothing to meet */
	char		*text;		/* replaces the value when set */
	int		 runs;
	bool		 show_p90;
	int		 decimals;
	int		 order;		/* when it was made */
};

#define NFIGS	64

/* A persistent control-mode client: the baseline's way of talking to tmux. */
struct ctl {
	pid_t		 pid;
	int		 to;
	int		 from;
	struct buf	 rbuf;
};

/*
 * Checking seq's output: every line a number, each one more than the last.
 */
struct seqcheck {
	long	 next;		/* the number the next line must hold */
	long	 acc;
	int	 digits;
	bool	 bad;
	long	 bad_line;
};

/*
 * Figures 9-13: agent tasks, each a count of calls and the
 * seconds calls spent blocked while the program waited for input (reads
 * that came back empty at a prompt), measured in one run. The client
 * does what an agent must with the server it has: with unfinishedLine
 * and waitingForInput it sees a prompt in the read and answers with one
 * send_keys timeoutMs call; without them (an older server) an empty read
 * at a prompt is followed by capture_pane to see the screen, and an
 * answer by reads until the reply is in. Reads wait AGENT_READ_MS.
 */
#define AGENT_READ_MS	5000

/* One agent task's tally. */
struct agent {
	struct pmx	*c;
	int		 calls;
	double		 blocked;	/* s in empty reads */
	bool		 new_fields;	/* the server has unfinishedLine */
	int64_t		 chars;		/* of text returned to the agent */
};

/* main.c */
extern struct sizes	 sz;
extern bool		 smoke;
extern char		 self_exe[PATH_MAX];

/* figures.c */
extern bool		 broke;		/* the harness itself failed */
extern int		 nbroke;	/* how many times */
void	bench_broke(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void	bench_log(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void	smp_add(struct samples *s, double v);
double	smp_q(struct samples *s, double q);
double	smp_max(struct samples *s);
void	smp_free(struct samples *s);
struct fig	*fig_new(const char *id, const char *name, const char *unit,
	    const char *target);
struct fig	*fig_find(const char *id);
void	bench_strip_figures(const char *path);
void	print_table(const char *nproc, const char *tmuxv, const char *commit);
int	write_json(const char *path, const char *nproc, const char *tmuxv,
	    const char *commit, double secs);
char	*cmd_line(const char *cmd);

/* calls.c: the harness, progmux through our own loop */
extern struct pmx	*live_pmx;
extern struct ctl	*live_ctl;
extern pid_t		 waiter_pid;	/* a tmux wait-for client */
extern const char *const bench_env[];
int64_t	realtime_ns(void);
void	sleep_ms(int ms);
void	bench_signal(int sig);
int64_t	bc_id(const struct json_doc *d);
struct json_doc	*bc_call(struct pmx *c, const char *tool, const char *args,
	    int64_t *us);
const struct json	*bc_ok(struct json_doc *d, const char *what);
char	*bc_start(struct pmx *c, const char *argv_json, int64_t *us);
void	bc_stop(struct pmx *c, const char *id);
int64_t	bc_send_read(struct pmx *c, const char *id, int64_t cursor,
	    int timeout);
struct json_doc	*bc_read(struct pmx *c, const char *id, int64_t cursor,
	    int timeout);
bool	bc_has_tool(const struct json_doc *d, const char *name);
int	bench_open(struct pmx *c);
void	bench_close(struct pmx *c);

/* ctl.c: the control-mode client, /proc, seq's output */
int	ctl_cmd(struct ctl *t, const char *cmd, struct buf *out, int ms,
	    int64_t *us);
void	ctl_close(struct ctl *t);
int	bench_open_ctl(struct pmx *c, struct ctl *t);
int	proc_reapers(pid_t front, pid_t *out, int max);
void	seq_feed(struct seqcheck *s, const char *t, size_t len);
bool	seq_done(struct seqcheck *s, long n);

/* latency.c */
void	bench_latency(void);
void	bench_cold_page(const char *base);

/* throughput.c */
long	seq_bytes(long n);
void	bench_throughput(void);
void	bench_front_rss(void);

/* scale.c */
void	bench_scale(void);

/* agent.c */
void	agent_begin(struct agent *a, struct pmx *c);
void	agent_stop(struct pmx *c, char *id, char *pane);
struct json_doc	*agent_read(struct agent *a, const char *id, int64_t *cursor,
	    const char *extra, struct buf *all, const struct json **sc);
void	agent_figs(const char *id, const char *name, const char *target,
	    struct agent *a, const char *blocked_target, double blocked_max);
int	agent_start_plain(struct pmx *c, const char *argv_json, char **id,
	    char **pane);
void	agent_chars(const char *id, const char *name, const char *target,
	    struct agent *a, int64_t max);
bool	agent_has_arg(const struct json_doc *list, const char *tool,
	    const char *arg);
int	agent_wait_end(struct pmx *c, const char *id);
int	agent_start(struct agent *a, const char *argv_json, char **id,
	    char **pane);
void	bench_agent(void);

/* ports.c */
void	bench_ports(void);
/* hosts.c */
void	bench_hosts(void);
/* adopt.c */
void	bench_adopt(void);

/* agent_reads.c */
void	bench_agent_logs(struct pmx *c, const struct json_doc *list);

/* output.c */
void	bench_output(void);

#endif
