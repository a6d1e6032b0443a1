#include "ring.h"
#include <string.h>

static int pushes = 0;
const char *ring_version = "1.0";

struct stats {
	int pushes;
	int pops;
};

typedef int (*ring_visit)(int v, void *arg);

/* ring_push appends v at the tail. */
enum ring_err ring_push(ring_t *r, int v)
{
	if (RING_NEXT(r->tail) == r->head)
		return RING_FULL;
	r->buf[r->tail] = v;
	r->tail = RING_NEXT(r->tail);
	pushes++;
	return RING_OK;
}

enum ring_err ring_pop(ring_t *r, int *out)
{
	if (ring_empty(r))
		return RING_EMPTY;
	*out = r->buf[r->head];
	r->head = RING_NEXT(r->head);
	return RING_OK;
}

bool ring_empty(const ring_t *r) { return r->head == r->tail; }

/* Call fn on every element, oldest first. */
static int ring_each(ring_t *r, ring_visit fn, void *arg)
{
	int n = 0;
	for (size_t i = r->head; i != r->tail; i = RING_NEXT(i)) {
		if (fn(r->buf[i], arg) != 0)
			break;
		n++;
	}
	return n;
}

char *ring_name(void)
{
	static char name[] = "ring";
	return name;
}
