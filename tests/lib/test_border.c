/* Border modes: gi_border_index, gi_border_parse, gi_border_name and
 * gi_border_pattern against the table in design.md.
 *
 * The expected indices are NOT computed with the table's mod formulas (that
 * would repeat the library's code). Instead the extended sequence is built
 * the way the patterns are drawn: start at an edge and walk outward one index
 * at a time, bouncing (reflect, mirror), sticking (replicate) or jumping to
 * the other end (wrap). Two ways of getting the same numbers agreeing is the
 * point of the test.
 */
#include "harness.h"

#include <gpuimg.h>
#include <stdlib.h>
#include <string.h>

#define NMODES 5

static const gi_border_mode modes[NMODES] = {
    GI_BORDER_ZERO, GI_BORDER_REPLICATE, GI_BORDER_REFLECT, GI_BORDER_MIRROR,
    GI_BORDER_WRAP,
};

/* The design.md table, typed in once: canonical name, pattern, aliases. */
static const struct {
    const char *name, *pattern, *aliases[4];
} table[NMODES] = {
    {"zero", "00|abcd|00", {"constant"}},
    {"replicate", "aa|abcd|dd", {"clamp", "nearest", "edge"}},
    {"reflect", "ba|abcd|dc", {"symmetric"}},
    {"mirror", "cb|abcd|cb", {"reflect101"}},
    {"wrap", "cd|abcd|ab", {"periodic", "tile"}},
};

/* One step outward from `*pos` moving in `*dir` inside [0, n). Returns the
 * index read at the new position, -1 for zero mode (the border value). */
static long step(long *pos, int *dir, long n, gi_border_mode mode)
{
    long next = *pos + *dir;
    int inside = next >= 0 && next < n;
    switch (mode) {
    case GI_BORDER_ZERO:
        return -1;
    case GI_BORDER_REPLICATE:
        return *pos; /* stuck at the edge */
    case GI_BORDER_REFLECT:
        /* Bounce with the edge sample repeated: the mirror sits between
         * samples, so the first outside step reads the edge again. */
        if (inside) *pos = next;
        else *dir = -*dir;
        return *pos;
    case GI_BORDER_MIRROR:
        /* Bounce on the edge sample: the mirror sits on it. */
        if (n == 1) return 0;
        if (!inside) *dir = -*dir;
        *pos += *dir;
        return *pos;
    case GI_BORDER_WRAP:
        *pos = inside ? next : (next < 0 ? n - 1 : 0);
        return *pos;
    }
    abort();
}

/* ext[i - lo] = expected index for i in [lo, hi]. */
static void walk(long n, gi_border_mode mode, long lo, long hi, long *ext)
{
    long pos;
    int dir;
    for (long i = 0; i < n; i++) ext[i - lo] = i;
    pos = n - 1, dir = +1;
    for (long i = n; i <= hi; i++) ext[i - lo] = step(&pos, &dir, n, mode);
    pos = 0, dir = -1;
    for (long i = -1; i >= lo; i--) ext[i - lo] = step(&pos, &dir, n, mode);
}

/* Offsets out to 5n past both edges, compared index by index. */
static void check_index_near(long n, gi_border_mode mode)
{
    long lo = -5 * n - 2, hi = 6 * n + 1, bad = 0;
    long *ext = malloc((size_t)(hi - lo + 1) * sizeof *ext);
    walk(n, mode, lo, hi, ext);
    for (long i = lo; i <= hi; i++) {
        long got = gi_border_index(i, n, mode);
        if (got != ext[i - lo] && bad++ < 3)
            th_check(0, "gi_border_index(%ld, %ld, %s) = %ld, want %ld", i, n,
                     gi_border_name(mode), got, ext[i - lo]);
    }
    th_check(bad == 0, "%s n=%ld: %ld wrong indices", gi_border_name(mode), n, bad);
    free(ext);
}

/* Far away (a radius much larger than the image), the walked sequence's own
 * period carries the near values out: i and i + k * period read the same. */
static void check_index_far(long n, gi_border_mode mode)
{
    long period = mode == GI_BORDER_WRAP ? n
                  : mode == GI_BORDER_REFLECT ? 2 * n
                  : mode == GI_BORDER_MIRROR ? (n == 1 ? 1 : 2 * n - 2) : 0;
    long ext[64], lo = -8, hi = 2 * n + 8, bad = 0;
    const long far[] = {1000003L, 123456789L, 4000000000L};
    walk(n, mode, lo, hi, ext);
    if (period == 0) { /* zero and replicate are constant out there */
        for (int f = 0; f < 3; f++) {
            bad += gi_border_index(far[f], n, mode) != ext[hi - lo];
            bad += gi_border_index(-far[f], n, mode) != ext[0];
        }
    } else {
        for (long i = 0; i < period; i++)
            for (int f = 0; f < 3; f++) {
                long k = far[f] / period * period;
                bad += gi_border_index(i + k, n, mode) != ext[i - lo];
                bad += gi_border_index(i - k, n, mode) != ext[i - lo];
            }
    }
    th_check(bad == 0, "%s n=%ld: %ld wrong far indices", gi_border_name(mode), n, bad);
}

/* The pattern drawn from the walk for n = 4 matches both the library's
 * string and the design table. */
static void check_pattern(int m)
{
    long ext[12];
    char drawn[11];
    const char *got = gi_border_pattern(modes[m]);
    walk(4, modes[m], -2, 5, ext);
    for (int k = 0; k < 8; k++)
        drawn[k + (k >= 2) + (k >= 6)] = ext[k] < 0 ? '0' : (char)('a' + ext[k]);
    drawn[2] = drawn[7] = '|';
    drawn[10] = '\0';
    th_check(got && strcmp(got, table[m].pattern) == 0,
             "gi_border_pattern(%s) = \"%s\", want \"%s\"", table[m].name,
             got ? got : "(null)", table[m].pattern);
    th_check(strcmp(drawn, table[m].pattern) == 0,
             "walked pattern for %s is \"%s\", table says \"%s\"", table[m].name,
             drawn, table[m].pattern);
}

static void check_parse_ok(const char *name, gi_border_mode want)
{
    gi_border_mode got = (gi_border_mode)-1;
    int rc = gi_border_parse(name, &got);
    th_check(rc == 0 && got == want, "gi_border_parse(\"%s\") = %d, mode %d; want 0, mode %d",
             name, rc, (int)got, (int)want);
}

static void check_names(int m)
{
    const char *name = gi_border_name(modes[m]);
    th_check(name && strcmp(name, table[m].name) == 0,
             "gi_border_name(%d) = \"%s\", want \"%s\"", (int)modes[m],
             name ? name : "(null)", table[m].name);
    check_parse_ok(table[m].name, modes[m]);
    for (int a = 0; a < 4 && table[m].aliases[a]; a++)
        check_parse_ok(table[m].aliases[a], modes[m]);
}

static void check_parse_junk(void)
{
    const char *junk[] = {"", "mirro", "mirror ", " wrap", "reflect-101",
                          "reflect_101", "zeros", "wrapx", "0", "border", "101"};
    for (size_t k = 0; k < sizeof junk / sizeof *junk; k++) {
        gi_border_mode mode = GI_BORDER_WRAP;
        int rc = gi_border_parse(junk[k], &mode);
        th_check(rc == -1, "gi_border_parse(\"%s\") = %d, want -1", junk[k], rc);
    }
}

int main(void)
{
    const long sizes[] = {1, 2, 3, 7};
    for (int m = 0; m < NMODES; m++) {
        for (int s = 0; s < 4; s++) {
            check_index_near(sizes[s], modes[m]);
            check_index_far(sizes[s], modes[m]);
        }
        check_pattern(m);
        check_names(m);
    }
    check_parse_junk();
    return th_finish();
}
