/* main_batch.c: batch mode (-b, --daemon, -r -b): the one loop that
 * writes each interval a source (source.h) gives: the sampler's, paced to
 * -d, or a recording's, as fast as it is read. Split from main.c so that
 * the loop is one file's job: how figures reach a file or a pipe, and how
 * a closed pipe, a signal or a failed write ends it. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "output.h"
#include "record.h"
#include "source.h"
#include "util.h"
#include "main_impl.h"
#include "hot_path.h"

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
		.show_ccx = r->topo && r->topo->nccx > 1,
		.tasks = r->tasks_view, .top = r->opt.top,
		.fleet_group = r->opt.fleet_group,
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

/* Batch mode, the same for every source: each interval the source makes
 * or reads is written, until -n, the source's end, a signal, a failure
 * or a write error. f: the output, opened before privileges were given
 * up (closed here). */
HOT_PATH int run_batch(struct run *r, struct source *src, FILE *f)
{
	/* --daemon: the intervals go to the exporter only. */
	struct output *out = r->opt.daemon ? NULL : new_output(r, f);
	/* An interval reaches the file in one write (output_write flushes
	 * each): in stdio's own buffer, of the file's block size, 4 KiB, a
	 * JSON interval of 8 KiB at 2 CPUs took two. Static: stdout, not
	 * closed here, keeps its buffer to the exit; only the bytes written
	 * are ever touched. */
	static char buf[1 << 16];
	if (out)
		setvbuf(f, buf, _IOFBF, sizeof(buf));
	int rc = 0;
	for (long n = 0; !stop_requested && (r->opt.iterations == 0 || n < r->opt.iterations); n++) {
		char *cause = NULL;
		enum source_got got;
		struct snapshot *snap = source_next(src, &got, &cause);
		if (got == SOURCE_SKIPPED)
			continue;
		if (got == SOURCE_END) {
			free(cause);
			break;
		}
		if (got == SOURCE_FAILED) {
			say(cause ? cause : "sampling failed");
			free(cause);
			rc = 1;
			break;
		}
		/* What the interval has to say is said before its figures. */
		source_say_news(src, snap);
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
		if (wr < 0) {
			/* A closed pipe (pmctop -b | head) is a normal way to stop. */
			if (wr != -EPIPE)
				fprintf(stderr, "pmctop: writing output: %s\n", strerror(-wr));
			rc = wr == -EPIPE ? 0 : 1;
			break;
		}
	}
	if (out)
		output_free(out);
	/* What the source has left to say (a recording's damage counted),
	 * and whether that failed the run (nothing could be read). */
	if (source_finish(src))
		rc = 1;
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, "pmctop: closing %s: %s\n", r->opt.output_path, strerror(errno));
		rc = 1;
	}
	return rc;
}
