/*
 * clock.c - the monotonic clock.  See clock.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"

#include <time.h>

double sc_clock_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
