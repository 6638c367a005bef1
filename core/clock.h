/*
 * clock.h - the one monotonic clock every time limit, progress rate and
 * report's seconds are measured with.
 */
#ifndef SC_CLOCK_H
#define SC_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC): only
 * differences mean anything.  Thread-safe and async-signal-safe. */
double sc_clock_now(void);

#endif
