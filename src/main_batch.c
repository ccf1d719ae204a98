/* main_batch.c: batch mode (-b, --daemon): the loop that writes each
 * interval the sampler makes, paced to -d, and -r -b, which writes each
 * interval of a recording as fast as it is read. Split from main.c so
 * that the loop is one file's job: how figures reach a file or a pipe,
 * and how a closed pipe, a signal or a failed write ends it. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "export.h"
#include "output.h"
#include "record.h"
#include "replay.h"
#include "sampler.h"
#include "util.h"
#include "main_impl.h"

/* Sleeps until the monotonic time t; false when a signal asked to stop. */
static bool pace_until(uint64_t t)
{
	while (!stop_requested && now_ns() < t)
		wait_until_ns(t);
	return !stop_requested;
}

/* Where batch output goes: -o's file, or standard output; NULL (said)
 * when the file cannot be written. */
FILE *open_output(struct run *r)
{
	char *cause = NULL;
	FILE *f = stdout;
	if (r->opt.output_path && !(f = output_open(r->opt.output_path, false, &cause)) && errno == ENXIO) {
		/* A FIFO with no reader yet: say so rather than hang without a
		 * word; Ctrl-C interrupts the wait (no SA_RESTART in batch). */
		free(cause);
		cause = xasprintf("waiting for a process to read the FIFO %s (Ctrl-C stops)", r->opt.output_path);
		say(cause);
		free(cause);
		cause = NULL;
		f = output_open(r->opt.output_path, true, &cause);
	}
	if (!f && !stop_requested)
		runtime_error(cause);
	free(cause);
	return f;
}

/* The batch writer's options: the chosen format, columns and events. */
static struct output_opts batch_opts(const struct run *r, const char *host)
{
	return (struct output_opts){
		.host = host,
		.format = r->opt.format,
		.ncols = r->nmetrics, .cols = r->metrics, .fmts = r->fmts,
		.nevcols = r->nevents, .evcols = r->events,
		.show_ccx = r->topo->nccx > 1,
		.tasks = r->tasks_view, .top = r->opt.top,
	};
}

static struct output *new_output(struct run *r, FILE *f)
{
	char host[256];
	run_host(r, host, sizeof(host));
	struct output_opts oo = batch_opts(r, host);
	return output_new(f, &oo);
}

void batch_written_scopes(const struct run *r, bool written[SNAP_NSCOPES])
{
	struct output_opts oo = batch_opts(r, "");
	output_scopes(&oo, written);
}

/* Says each line of notice that before (the notice said last) did not
 * have. */
static void say_new_lines(const char *notice, const char *before)
{
	for (const char *l = notice; l && *l;) {
		size_t len = strcspn(l, "\n");
		bool known = false;
		for (const char *b = before; b && *b && !known;) {
			size_t blen = strcspn(b, "\n");
			known = blen == len && !memcmp(b, l, len);
			b += blen + (b[blen] == '\n');
		}
		if (!known) {
			char *line = xstrndup(l, len);
			say(line);
			free(line);
		}
		l += len + (l[len] == '\n');
	}
}

/* f: the output, opened before privileges were given up. */
int run_batch(struct run *r, struct sampler *s, FILE *f)
{
	/* --daemon: the intervals go to the exporter only. */
	struct output *out = r->opt.daemon ? NULL : new_output(r, f);
	int rc = 0;
	char *told = NULL;        /* the notice of the interval before */
	uint64_t t0 = now_ns();
	for (long n = 0; !stop_requested && (r->opt.iterations == 0 || n < r->opt.iterations); n++) {
		char *cause = NULL;
		struct snapshot *snap = sampler_step(s, &cause);
		/* The simulated PMU does not take real time to count; pace it so
		 * that -d means seconds there too, as it does on the screen
		 * (unless its ff=1 option asks for fast-forward): an
		 * interval is written when it has ended, the first one too. A
		 * signal while waiting still writes it (nothing is lost). */
		bool paced = true;
		if (snap && r->ops->simulated && !sim_fast_forward(sampler_backend(s)))
			paced = pace_until(t0 + (uint64_t)llround((double)(n + 1) * r->opt.delay_s * 1e9));
		if (!snap) {
			if (stop_requested) {
				free(cause);
				break;
			}
			say(cause ? cause : "sampling failed");
			free(cause);
			rc = 1;
			break;
		}
		/* Each line of the notice is said when it first appears, before
		 * the figures it concerns, one "pmctop:" per line: what the plan
		 * has to say once, and a failure (a plan that could not be
		 * opened, reads that failed) in the interval it happened. */
		say_new_lines(snap->notice, told);
		free(told);
		told = snap->notice ? xstrdup(snap->notice) : NULL;
		int wr = out ? output_write(out, snap) : 0;
		/* A recording that cannot be written does not stop the run
		 * (the exporter serves on); it is said once, and again when
		 * it resumes, and the exit status says intervals were lost. */
		char *news = recorder_news(r->rec);
		if (news) {
			say(news);
			free(news);
		}
		if (r->hub)
			export_hub_publish(r->hub, snap);
		else
			snapshot_free(snap);
		if (wr >= 0 && !paced)
			break;
		if (wr < 0) {
			/* A closed pipe (pmctop -b | head) is a normal way to stop. */
			if (wr != -EPIPE)
				fprintf(stderr, "pmctop: writing output: %s\n", strerror(-wr));
			rc = wr == -EPIPE ? 0 : 1;
			break;
		}
	}
	free(told);
	if (out)
		output_free(out);
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, "pmctop: closing %s: %s\n", r->opt.output_path, strerror(errno));
		rc = 1;
	}
	return rc;
}

/* Says once which of the metrics asked for the recording cannot give. */
static void tell_missing(struct run *r, const struct snapshot *snap)
{
	for (int i = 0; i < r->nmetrics; i++) {
		char why[160];
		if (snap->metric_planned[r->metrics[i]] ||
		    !replay_why_missing(r->rp, r->metrics[i], why, sizeof(why)))
			continue;
		char *msg = xasprintf("%s: %s shows '-' from the first interval on: %s", r->opt.replay_path,
				      r->model->metrics[r->metrics[i]].name, why);
		say(msg);
		free(msg);
	}
}

/* -r with -b: every interval of the recording derived again and written
 * as batch mode writes it, as fast as it can be read. A damaged interval
 * is said and skipped; nothing else stops the replay but -n, a signal or
 * a write error. */
int run_replay_batch(struct run *r)
{
	char *cause = NULL;
	FILE *f = open_output(r);
	if (!f)
		return 1;
	/* A replay opens no counters: nothing of root is needed from here. */
	int rc = give_up_privileges(r, false);
	if (rc) {
		if (f != stdout)
			fclose(f);
		return rc;
	}
	struct output *out = new_output(r, f);
	int n = replay_count(r->rp), good = 0, bad = 0;
	if (r->opt.iterations > 0 && r->opt.iterations < n)
		n = (int)r->opt.iterations;
	for (int i = 0; i < n && !stop_requested; i++) {
		struct snapshot *snap = replay_snapshot(r->rp, i, &cause);
		if (!snap) {
			/* The first few said as they come, the rest counted: a
			 * file of a million damaged intervals is not a million
			 * lines. */
			if (bad++ < REPLAY_SAID_DAMAGED) {
				char *msg = xasprintf("%s: %s; skipped", r->opt.replay_path, cause);
				say(msg);
				free(msg);
			}
			free(cause);
			cause = NULL;
			continue;
		}
		if (good++ == 0)
			tell_missing(r, snap);
		int wr = output_write(out, snap);
		snapshot_free(snap);
		if (wr < 0) {
			if (wr != -EPIPE)
				fprintf(stderr, "pmctop: writing output: %s\n", strerror(-wr));
			rc = wr == -EPIPE ? 0 : 1;
			break;
		}
	}
	output_free(out);
	if (bad > REPLAY_SAID_DAMAGED)
		fprintf(stderr, "pmctop: %s: %d more damaged intervals were skipped (%d in all, %d read)\n",
			r->opt.replay_path, bad - REPLAY_SAID_DAMAGED, bad, good);
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, "pmctop: closing %s: %s\n", r->opt.output_path, strerror(errno));
		rc = 1;
	}
	if (good == 0 && n > 0 && !stop_requested) {
		fprintf(stderr, "pmctop: %s: no interval could be read\n", r->opt.replay_path);
		rc = 1;
	}
	return rc;
}
