/*
 * adopt.c — figure 24: what adopting programs left on a lease costs a
 * start-up. 64 programs wait in the rendezvous (their front killed);
 * a new progmux starts, adopts them all, and answers initialize and
 * list_programs. The baseline is a start-up with nothing to adopt, on
 * the same tmux server at the same moments: a second progmux started
 * while the first holds the 64 (a live front's programs are never
 * taken, so its rendezvous is empty to it). The two alternate.
 */
#include <sys/types.h>
#include <sys/stat.h>

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
#include "timeutil.h"
#include "xmalloc.h"

#include "bench.h"

#define ADOPT_PROGS	64

static const char *const adopt_env[] = {
	"PROGMUX_MAX_PROGRAMS=300",
	"PROGMUX_ORPHAN_GRACE_MS=60000",
	NULL
};

/*
 * Start a progmux on c (spawned, not yet initialized) and time it until
 * initialize and list_programs are answered: the ms in *ms, the
 * programs listed as adopted in *adopted; -1 if it did not answer.
 */
static int
adopt_startup(struct pmx *c, bool twin_of, struct pmx *of, double *ms,
    int *adopted)
{
	struct json_doc		*d;
	const struct json	*progs;
	int64_t			 t0, id;
	size_t			 i;

	t0 = now_us();
	if ((twin_of ? pmx_twin(c, of, adopt_env, false) :
	    pmx_spawn(c, adopt_env, false)) == -1)
		return (-1);
	id = pmx_send(c, "initialize", "{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"progmux-bench\","
	    "\"version\":\"1\"}}");
	while ((d = pmx_read_line(c, CALL_MS)) != NULL && bc_id(d) != id)
		json_doc_free(d);
	if (d == NULL)
		return (-1);
	json_doc_free(d);
	pmx_send_raw(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}", 54);
	d = bc_call(c, "list_programs", "{}", NULL);
	*ms = (double)(c->read_us - t0) / 1000.0;
	if (d == NULL || (progs = json_get(bc_ok(d, "list_programs"),
	    "programs")) == NULL) {
		json_doc_free(d);
		return (-1);
	}
	*adopted = 0;
	for (i = 0; i < json_len(progs); i++)
		*adopted += json_bool(json_get(json_at(progs, i), "adopted"));
	json_doc_free(d);
	return (0);
}

/* Figure 24: a start-up adopting 64 programs against one adopting none. */
void
bench_adopt(void)
{
	struct pmx	 c, twin;
	struct samples	 ad = { 0 }, base = { 0 };
	struct fig	*f;
	char		*ids[ADOPT_PROGS];
	double		 ms;
	int		 i, n = 0, got = 0, waiting, b0 = nbroke;
	bool		 alive = true;

	f = fig_new("adopt_startup", "24 start-up adopting 64 programs", "ms",
	    "-");
	f->base_what = "a start-up adopting none";
	f->show_p90 = true;
	if (pmx_open(&c, adopt_env) == -1) {
		bench_broke("adopt: could not start tmux and progmux");
		pmx_close(&c);
		return;
	}
	live_pmx = &c;
	for (; n < ADOPT_PROGS; n++)
		if ((ids[n] = bc_start(&c, "[\"sleep\",\"600\"]", NULL)) ==
		    NULL)
			goto out;
	for (i = 0; i < sz.cold_runs && nbroke == b0; i++) {
		/* Nothing to adopt: a twin while the 64 have a front. */
		if (adopt_startup(&twin, true, &c, &ms, &got) == -1) {
			bench_broke("adopt: a start-up with nothing to adopt "
			    "did not answer");
			pmx_twin_close(&twin);
			break;
		}
		smp_add(&base, ms);
		pmx_twin_close(&twin);
		/* The front killed; once all 64 wait, a new one adopts. */
		pmx_kill_front(&c);
		alive = false;
		if ((waiting = pmx_wait_lease_sockets(&c, ADOPT_PROGS,
		    CALL_MS)) < ADOPT_PROGS) {
			bench_broke("adopt: %d of %d programs waiting on a "
			    "lease", waiting, ADOPT_PROGS);
			break;
		}
		if (adopt_startup(&c, false, NULL, &ms, &got) == 0)
			alive = true;
		if (!alive || got != ADOPT_PROGS) {
			bench_broke("adopt: the new front adopted %d of %d",
			    got, ADOPT_PROGS);
			break;
		}
		smp_add(&ad, ms);
	}
out:
	if (ad.n > 0 && base.n > 0) {
		f->median = smp_q(&ad, 0.5);
		f->p90 = smp_q(&ad, 0.9);
		f->base_median = smp_q(&base, 0.5);
		f->base_p90 = smp_q(&base, 0.9);
		f->ratio = f->median / f->base_median;
		f->runs = (int)ad.n;
		bench_log("adopt: start-up %.1f ms adopting %d, %.1f ms "
		    "adopting none", f->median, ADOPT_PROGS, f->base_median);
	}
	/* Stopped, so nothing waits on a lease after us (with no front,
	 * the end of the tmux server ends them). */
	for (i = 0; i < n; i++) {
		if (alive)
			bc_stop(&c, ids[i]);
		free(ids[i]);
	}
	smp_free(&ad);
	smp_free(&base);
	live_pmx = NULL;
	pmx_close(&c);
}
