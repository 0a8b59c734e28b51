/*
 * hosts.c — figures 22 and 23, progmux as the hub of other hosts:
 *
 *  22 a call through a host's link against the same call made directly
 *     to the far progmux, both over ssh to 127.0.0.1 through one
 *     ControlMaster connection (an sshd of the bench's own, root, key
 *     authentication), samples interleaved: read_program with timeoutMs
 *     0 of a program there, the hub's extra cost being the figure;
 *  23 the hub's memory per host linked: its front's RSS with eight hosts
 *     linked (local progmux --robust, no ssh) against before any link.
 *
 * Needs root and an sshd for 22 (tests/sshd.c); n/a otherwise.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "client.h"
#include "json.h"
#include "sshd.h"
#include "timeutil.h"
#include "xmalloc.h"

#include "bench.h"

#define HOSTS_MEM_N	8	/* hosts linked for figure 23 */

/* The far progmux's command: words first (ssh's, or nothing), then env,
 * the binary and robust mode, into b. */
static void
hosts_far(struct buf *b, const char *words, const char *tmpdir)
{
	char	*bin = realpath("build/progmux", NULL);

	buf_printf(b, "%s%senv TMPDIR=%s %s --robust --tmux-bin %s", words,
	    *words != '\0' ? " " : "", tmpdir, bin != NULL ? bin :
	    "build/progmux", pmx_tmux_bin());
	free(bin);
}

/* Start a program printing a line on c (its host, or this machine);
 * its id once the line is there, or NULL. */
static char *
hosts_program(struct pmx *c, const char *host)
{
	struct json_doc	*d;
	char		 args[200], *id;

	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"echo x; exec "
	    "sleep 600\"]%s%s%s}", host ? ",\"host\":\"" : "", host ? host :
	    "", host ? "\"" : "");
	d = bc_call(c, "start_program", args, NULL);
	if (bc_ok(d, "start_program") == NULL) {
		json_doc_free(d);
		return (NULL);
	}
	id = xstrdup(json_str(json_get(pmx_sc(d), "programId"), NULL));
	json_doc_free(d);
	json_doc_free(bc_read(c, id, 0, 10000));	/* "x" is there */
	return (id);
}

/* One sample of figure 22 on c: read_program of id, answered at once. */
static bool
hosts_sample(struct pmx *c, const char *id, struct samples *s)
{
	struct json_doc	*d;
	char		 args[200];
	int64_t		 us;

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":2,"
	    "\"timeoutMs\":0}", id);
	d = bc_call(c, "read_program", args, &us);
	if (bc_ok(d, "read_program") == NULL) {
		json_doc_free(d);
		return (false);
	}
	json_doc_free(d);
	smp_add(s, (double)us / 1000.0);
	return (true);
}

/* Figure 22, in dir: sshd, the direct client, the hub, the samples. */
static void
hosts_link_cost(struct fig *f, const char *dir)
{
	struct sshd	 s = { .pid = -1 };
	struct pmx	 direct, hub;
	struct samples	 ds = { NULL, 0 }, hs = { NULL, 0 };
	struct buf	 far = BUF_INIT, env = BUF_INIT;
	const char	*hub_env[2], *saved;
	char		 path[400], words[900], master[400], *cause, *did = NULL;
	char		*hid = NULL;
	int		 i, fd;
	bool		 up_d = false, up_h = false;

	snprintf(path, sizeof path, "%s/sshd", dir);
	if (sshd_start(&s, path, NULL, NULL, NULL, &cause) == -1) {
		f->text = cause;
		return;
	}
	sshd_ssh(&s, words, sizeof words);
	snprintf(master, sizeof master, " -o ControlMaster=auto -o "
	    "ControlPath=%s/cm-%%C -o ControlPersist=60", dir);
	strncat(words, master, sizeof words - strlen(words) - 1);
	snprintf(path, sizeof path, "%s/far", dir);
	mkdir(path, 0700);
	hosts_far(&far, words, path);

	/* The direct client: its command is the far one. */
	snprintf(path, sizeof path, "%s/direct.sh", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700)) != -1) {
		dprintf(fd, "#!/bin/sh\nexec %s\n", buf_cstr(&far));
		close(fd);
	}
	memset(&direct, 0, sizeof direct);
	saved = getenv("PROGMUX_BIN");
	setenv("PROGMUX_BIN", path, 1);
	up_d = pmx_prepare(&direct) == 0 && pmx_spawn(&direct, NULL,
	    true) == 0;
	if (saved != NULL)
		setenv("PROGMUX_BIN", saved, 1);
	else
		unsetenv("PROGMUX_BIN");
	buf_printf(&env, "PROGMUX_HOSTS=box=%s", buf_cstr(&far));
	hub_env[0] = buf_cstr(&env);
	hub_env[1] = NULL;
	up_h = pmx_open(&hub, hub_env) == 0;
	if (!up_d || !up_h)
		bench_broke("figure 22: the direct client (%d) or the hub (%d) "
		    "did not start", up_d, up_h);
	else if ((did = hosts_program(&direct, NULL)) == NULL ||
	    (hid = hosts_program(&hub, "box")) == NULL)
		bench_broke("figure 22: no program on the far side");
	for (i = 0; did != NULL && hid != NULL && i <= sz.runs * 5; i++) {
		/* (The first pair warms up; then alternately.) */
		if (!hosts_sample(&direct, did, i > 0 ? &ds : &hs) ||
		    !hosts_sample(&hub, hid, i > 0 ? &hs : &ds))
			break;
		if (i == 0) {
			smp_free(&ds);
			smp_free(&hs);
		}
	}
	if (ds.n > 0 && hs.n == ds.n) {
		f->median = smp_q(&hs, 0.5) - smp_q(&ds, 0.5);
		f->p90 = smp_q(&hs, 0.9) - smp_q(&ds, 0.9);
		f->base_median = smp_q(&ds, 0.5);
		f->base_p90 = smp_q(&ds, 0.9);
		f->base_what = "the same call made directly";
		f->met = f->median <= 1.0;
		f->runs = (int)hs.n;
		f->decimals = 3;
		bench_log("through the hub %.3f ms, direct %.3f ms (medians)",
		    smp_q(&hs, 0.5), smp_q(&ds, 0.5));
	}
	free(did);
	free(hid);
	if (up_h)
		pmx_close(&hub);
	pmx_close(&direct);
	/* The shared connection's master, which ControlPersist keeps. */
	snprintf(path, sizeof path, "%s -O exit 2>/dev/null", words);
	free(cmd_line(path));
	sshd_stop(&s);
	smp_free(&ds);
	smp_free(&hs);
	buf_free(&far);
	buf_free(&env);
}

/* Figure 23, in dir: the hub's front RSS before and after linking
 * HOSTS_MEM_N local hosts. */
static void
hosts_memory(struct fig *f, const char *dir)
{
	struct pmx	 hub;
	struct buf	 env = BUF_INIT, far = BUF_INIT;
	const char	*hub_env[2];
	char		 path[300], args[200];
	struct json_doc	*d;
	long		 idle, linked;
	int		 i;

	snprintf(path, sizeof path, "%s/mem", dir);
	mkdir(path, 0700);
	hosts_far(&far, "", path);
	buf_adds(&env, "PROGMUX_HOSTS=");
	for (i = 0; i < HOSTS_MEM_N; i++)
		buf_printf(&env, "h%d=exec %s\n", i, buf_cstr(&far));
	hub_env[0] = buf_cstr(&env);
	hub_env[1] = NULL;
	if (pmx_open(&hub, hub_env) == -1) {
		bench_broke("figure 23: the hub did not start");
		pmx_close(&hub);
		goto out;
	}
	live_pmx = &hub;
	json_doc_free(bc_call(&hub, "list_programs", "{}", NULL));
	sleep_ms(100);
	idle = pmx_status_kb(hub.front, "VmRSS");
	for (i = 0; i < HOSTS_MEM_N; i++) {
		snprintf(args, sizeof args, "{\"argv\":[\"true\"],\"host\":"
		    "\"h%d\"}", i);
		d = bc_call(&hub, "run_program", args, NULL);
		if (bc_ok(d, "run_program") == NULL) {
			json_doc_free(d);
			break;
		}
		json_doc_free(d);
	}
	/* A merged list touches every link's buffers. */
	json_doc_free(bc_call(&hub, "list_programs", "{}", NULL));
	sleep_ms(100);
	linked = pmx_status_kb(hub.front, "VmRSS");
	if (i == HOSTS_MEM_N) {
		f->median = (double)(linked - idle) / HOSTS_MEM_N / 1024.0;
		f->base_median = (double)idle / 1024.0;
		f->base_what = "the hub's RSS before any link";
		f->met = f->median < 1.0;
		f->runs = 1;
		f->decimals = 3;
	}
	bench_log("hub RSS: %ld KiB, %d hosts linked %ld KiB", idle,
	    HOSTS_MEM_N, linked);
	bench_close(&hub);
out:
	buf_free(&env);
	buf_free(&far);
}

/* Figures 22 and 23. */
void
bench_hosts(void)
{
	struct fig	*f22, *f23;
	const char	*why;
	char		 dir[] = "/tmp/progmux-bench-hosts-XXXXXX", path[64];

	f22 = fig_new("host_link_cost", "22 a call through a host's link, "
	    "more than direct (ssh, ControlMaster)", "ms", "<= 1 ms more");
	f22->show_p90 = true;
	f23 = fig_new("host_link_memory", "23 hub memory per host linked",
	    "MiB", "< 1 MiB");
	if (mkdtemp(dir) == NULL || chmod(dir, 0755) == -1) {
		bench_broke("cannot make %s", dir);
		return;
	}
	if ((why = sshd_missing(false)) != NULL)
		xasprintf(&f22->text, "n/a (%s)", why);
	else
		hosts_link_cost(f22, dir);
	hosts_memory(f23, dir);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	free(cmd_line(path));
}
