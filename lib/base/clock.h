/* The host's monotonic clock and a median, for stage times and timings. */
#ifndef GI_CLOCK_H
#define GI_CLOCK_H

/* Sorts ms[0..n) and returns the median. */
double gi__median(double *ms, int n);

/* Host clock in milliseconds (monotonic). */
double gi__now_ms(void);

#endif
