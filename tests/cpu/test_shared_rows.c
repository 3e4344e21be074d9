/* gi__parallel_rows_shared (lib/cpu/cpu_parallel.h): every row is given
 * exactly once, fn runs once a thread, a thread's rows follow each other
 * but where they are marked fresh (and there never do), claims of one row
 * and of up to 5, and a thread done
 * with its band takes rows from a slow one (one band sleeps on each row,
 * so the others must take its rows); from the pool, and from threads of
 * their own when the pool is busy (a call made inside another). */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"
#include "cpu/cpu_parallel.h"

#define MAX_ROWS 2000

typedef struct {
    atomic_int seen[MAX_ROWS];
    atomic_int calls, out_of_order, runs, slow_rows;
    int slow_below; /* rows below this sleep (the first band's) */
    int most;       /* rows a claim takes at most */
} job;

static void nap_us(long us)
{
    struct timespec t = {0, us * 1000};
    nanosleep(&t, NULL);
}

static int visit(void *arg, gi__row_cursor *rows)
{
    job *j = arg;
    atomic_fetch_add(&j->calls, 1);
    int last = -1;
    for (int y, end, fresh; (y = gi__rows_next(rows, j->most, &end, &fresh)) >= 0;) {
        if (fresh != (y != last) || end <= y || end - y > j->most || end > gi__row_end(rows))
            atomic_fetch_add(&j->out_of_order, 1);
        atomic_fetch_add(&j->runs, fresh);
        last = end;
        for (; y < end; y++) {
            atomic_fetch_add(&j->seen[y], 1);
            if (y < j->slow_below) {
                atomic_fetch_add(&j->slow_rows, 1);
                nap_us(200);
            }
        }
    }
    return 0;
}

/* One call: its rows each seen once, in order, fn once a thread. */
static void check_call(int threads, int rows, int min_take, int most, const char *how)
{
    job *j = calloc(1, sizeof *j);
    j->most = most;
    const int r = gi__parallel_rows_shared(threads, rows, min_take, visit, j);
    int wrong = 0;
    for (int y = 0; y < rows; y++) wrong += atomic_load(&j->seen[y]) != 1;
    const int calls = atomic_load(&j->calls), want = threads < rows ? threads : rows;
    th_check(r == 0 && wrong == 0 && atomic_load(&j->out_of_order) == 0 && calls == want,
             "%s: %d threads, %d rows, min_take %d, claims of %d: %d rows not seen once, %d out "
             "of order, %d calls", how, threads, rows, min_take, most, wrong,
             atomic_load(&j->out_of_order), calls);
    free(j);
}

/* With the first band's rows slow, the others take most of them. */
static void check_taking(int threads, int most, const char *how)
{
    const int rows = 400, band = rows / threads;
    job *j = calloc(1, sizeof *j);
    j->slow_below = band;
    j->most = most;
    gi__parallel_rows_shared(threads, rows, 2, visit, j);
    /* runs past each thread's first: rows taken from the slow band */
    th_check(atomic_load(&j->runs) > threads && atomic_load(&j->slow_rows) == band,
             "%s: %d threads, claims of %d: %d runs of rows for %d bands", how, threads, most,
             atomic_load(&j->runs), threads);
    free(j);
}

/* The outer call's first band (the harness counts on one thread): the
 * pool is the outer call's meanwhile. */
static int nested(void *arg, int begin, int end)
{
    (void)arg;
    (void)end;
    if (begin == 0) {
        check_call(4, 997, 3, 1, "nested");
        check_taking(4, 3, "nested");
    }
    return 0;
}

int main(void)
{
    const int threads[] = {1, 2, 3, 8, 16}, rows[] = {1, 2, 7, 100, 1999};
    for (int t = 0; t < 5; t++)
        for (int r = 0; r < 5; r++)
            for (int m = 1; m <= 8; m *= 8)
                for (int most = 1; most <= 5; most += 4)
                    check_call(threads[t], rows[r], m, most, "pool");
    for (int t = 2; t <= 16; t *= 2)
        for (int most = 1; most <= 5; most += 4) check_taking(t, most, "pool");
    /* the pool busy with this call: the inner calls start threads */
    gi__parallel_rows(2, 2, nested, NULL);
    return th_finish();
}
