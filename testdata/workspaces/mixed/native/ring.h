/* ring.h - a fixed-size ring buffer of ints. */
#ifndef RING_H
#define RING_H

#include <stddef.h>
#include <stdbool.h>

#define RING_CAP 64
#define RING_NEXT(i) (((i) + 1) % RING_CAP)

/* A ring buffer; zero value is empty. */
typedef struct ring {
	int buf[RING_CAP];
	size_t head, tail;
} ring_t;

enum ring_err { RING_OK, RING_FULL, RING_EMPTY };

/* Push v; RING_FULL when there is no room. */
enum ring_err ring_push(ring_t *r, int v);
enum ring_err ring_pop(ring_t *r, int *out);
bool ring_empty(const ring_t *r);

#endif /* RING_H */
