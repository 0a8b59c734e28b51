/*
 * ports.c — figures 22 and 23: what a report's port walk costs. A read
 * of a running server (its tree's ports walked before the answer, the
 * kernel's tables read afresh: 30 ms apart, past the port's 20 ms reuse)
 * against the same read of the same helper once ended (no walk), the
 * two interleaved; then a read and a ping while the tree is large (300
 * processes holding 10 sockets each), which the walk goes through a
 * slice of each loop turn.
 */
#include <sys/types.h>

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "client.h"
#include "json.h"
#include "timeutil.h"
#include "xmalloc.h"

#include "bench.h"

/* Start the bench's own helper (main.c) with words; its id, once its
 * first line ("listening", "tree ready") is there or it ended. */
static char *
ports_helper(struct pmx *c, const char *words, int64_t *cursor)
{
	struct json_doc		*d;
	const struct json	*sc;
	char			*exe, *argv, *id;

	exe = pmx_jstr(self_exe);
	xasprintf(&argv, "[%s,%s]", exe, words);
	free(exe);
	id = bc_start(c, argv, NULL);
	free(argv);
	*cursor = 0;
	while (id != NULL) {
		d = bc_read(c, id, *cursor, 10000);
		if ((sc = bc_ok(d, "read_program")) == NULL) {
			json_doc_free(d);
			break;
		}
		*cursor = json_int(json_get(sc, "cursor"));
		if (*cursor > 0 || json_bool(json_get(sc, "ended"))) {
			json_doc_free(d);
			break;
		}
		json_doc_free(d);
	}
	return (id);
}

/* One read of id at cursor, timeoutMs 0: its round trip in ms, and
 * whether it named a port. */
static int
ports_read(struct pmx *c, const char *id, int64_t cursor, double *ms,
    bool *ports)
{
	struct json_doc	*d;
	char		 args[256];
	int64_t		 us;

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":0}", id, (long long)cursor);
	d = bc_call(c, "read_program", args, &us);
	if (bc_ok(d, "read_program") == NULL) {
		json_doc_free(d);
		return (-1);
	}
	*ports = json_get(pmx_sc(d), "ports") != NULL;
	*ms = (double)us / 1000.0;
	json_doc_free(d);
	return (0);
}

/* Figures 22 and 23 on one harness. */
void
bench_ports(void)
{
	struct pmx	 c;
	struct samples	 with = { 0 }, without = { 0 }, big = { 0 };
	struct samples	 ping = { 0 };
	struct fig	*f;
	struct json_doc	*d;
	char		*on, *off, *tree, words[64];
	int64_t		 con, coff, ctree, us, rid, pid;
	double		 ms;
	bool		 ports;
	int		 i, b0 = nbroke;

	if (bench_open(&c) == -1)
		return;
	on = ports_helper(&c, "\"--listen\"", &con);
	off = ports_helper(&c, "\"--listen\",\"exit\"", &coff);
	if (on == NULL || off == NULL)
		goto out;
	for (i = 0; i <= sz.runs && nbroke == b0; i++) {
		sleep_ms(30);	/* the kernel's tables read afresh each time */
		if (ports_read(&c, on, con, &ms, &ports) == -1)
			break;
		if (!ports) {
			bench_broke("a read of a listening helper named no "
			    "port");
			break;
		}
		if (i > 0)
			smp_add(&with, ms);
		if (ports_read(&c, off, coff, &ms, &ports) == -1)
			break;
		if (i > 0)
			smp_add(&without, ms);
	}
	f = fig_new("read_ports", "22 read_program, ports walked", "ms",
	    "<= 1 ms");
	f->base_what = "it ended: no walk";
	f->show_p90 = true;
	f->median = smp_q(&with, 0.5);
	f->p90 = smp_q(&with, 0.9);
	f->base_median = smp_q(&without, 0.5);
	f->base_p90 = smp_q(&without, 0.9);
	f->ratio = f->median / f->base_median;
	f->met = f->median <= 1.0;
	f->runs = (int)with.n;
	bench_log("read with ports: %.2f ms vs ended %.2f ms", f->median,
	    f->base_median);

	/* 23: a big tree; a ping sent right after each read. */
	snprintf(words, sizeof words, "\"--tree\",\"%d\",\"10\"",
	    smoke ? 10 : 300);
	if ((tree = ports_helper(&c, words, &ctree)) == NULL)
		goto out;
	for (i = 0; i < sz.runs && nbroke == b0; i++) {
		us = now_us();
		rid = bc_send_read(&c, tree, ctree, 0);
		pid = pmx_send(&c, "ping", NULL);
		while ((d = pmx_read_line(&c, CALL_MS)) != NULL) {
			if (bc_id(d) == pid)
				smp_add(&ping, (double)(c.read_us - us) / 1000.0);
			if (bc_id(d) == rid) {
				smp_add(&big, (double)(c.read_us - us) /
				    1000.0);
				json_doc_free(d);
				break;
			}
			json_doc_free(d);
		}
		if (d == NULL) {
			bench_broke("a read of the big tree got no answer");
			break;
		}
	}
	f = fig_new("read_ports_tree", smoke ? "23 read, 10 procs 100 sockets" :
	    "23 read, 300 procs 3000 sockets", "ms", "-");
	f->show_p90 = true;
	f->median = smp_q(&big, 0.5);
	f->p90 = smp_q(&big, 0.9);
	f->met = -1;
	f->runs = (int)big.n;
	f = fig_new("read_ports_tree_ping", "23 a ping sent after that read",
	    "ms", "<= 5 ms");
	f->show_p90 = true;
	f->median = smp_q(&ping, 0.5);
	f->p90 = smp_q(&ping, 0.9);
	f->met = f->median <= 5.0;
	f->runs = (int)ping.n;
	bench_log("read of the big tree: %.2f ms, a ping meanwhile %.2f ms",
	    smp_q(&big, 0.5), smp_q(&ping, 0.5));
	bc_stop(&c, tree);
	free(tree);
out:
	if (on != NULL)
		bc_stop(&c, on);
	if (off != NULL)
		bc_stop(&c, off);
	free(on);
	free(off);
	smp_free(&with);
	smp_free(&without);
	smp_free(&big);
	smp_free(&ping);
	bench_close(&c);
}
