/* perf_ring.c: the perf_event mmap ring reader (perf_ring.h). */
#include "config.h"
#include "perf_ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

struct perf_ring {
	struct perf_event_mmap_page *meta;
	size_t len;               /* mapped bytes */
	unsigned char *data;
	uint64_t size, mask;      /* data area */
	unsigned char rec[256];   /* a record that wraps around the end */
};

struct perf_ring *perf_ring_map(int fd, int order, char **cause)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)page * ((1u << order) + 1);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		set_cause(cause, "cannot map the sample buffer: %s", strerror(e));
		errno = e;
		return NULL;
	}
	struct perf_ring *r = xcalloc(1, sizeof(*r));
	r->meta = p;
	r->len = len;
	r->data = (unsigned char *)p + page;
	r->size = (uint64_t)page << order;
	r->mask = r->size - 1;
	return r;
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (!r)
		return;
	munmap(r->meta, r->len);
	free(r);
}

/* The record at offset pos of the data area, contiguous (copied when it
 * wraps), or NULL if longer than any record pmctop asks for. */
static const unsigned char *record_at(struct perf_ring *r, uint64_t pos, uint16_t size)
{
	uint64_t off = pos & r->mask;
	if (off + size <= r->size)
		return r->data + off;
	if (size > sizeof(r->rec))
		return NULL;
	uint64_t first = r->size - off;
	memcpy(r->rec, r->data + off, (size_t)first);
	memcpy(r->rec + first, r->data, (size_t)(size - first));
	return r->rec;
}

long perf_ring_drain(struct perf_ring *r, perf_ring_fn fn, void *arg)
{
	/* Acquire: the records up to head are complete once head is seen. */
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	long lost = 0;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		const unsigned char *p = record_at(r, tail, sizeof(h));
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;   /* never: the kernel writes whole records */
		p = record_at(r, tail, h.size);
		if (p && h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 24) {
			/* IDENTIFIER, then TID (pid, tid), then PERIOD. */
			uint64_t id, period;
			uint32_t pid;
			memcpy(&id, p + sizeof(h), 8);
			memcpy(&pid, p + sizeof(h) + 8, 4);
			memcpy(&period, p + sizeof(h) + 16, 8);
			fn(arg, id, pid, period);
		} else if (p && h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t n;
			memcpy(&n, p + sizeof(h) + 8, 8);
			lost += (long)n;
		}
		tail += h.size;
	}
	/* Release: the kernel may reuse the space only after it was read. */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return lost;
}
