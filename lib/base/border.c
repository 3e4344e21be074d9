/* Border index mapping, names and patterns (the table in gpuimg.h). */
#include <string.h>
#include <strings.h>

#include "gpuimg.h"

static long mod_nonneg(long i, long m)
{
    long r = i % m;
    return r < 0 ? r + m : r;
}

long gi_border_index(long i, long n, gi_border_mode mode)
{
    if (i >= 0 && i < n) return i;
    switch (mode) {
    case GI_BORDER_ZERO:
        return -1;
    case GI_BORDER_REPLICATE:
        return i < 0 ? 0 : n - 1;
    case GI_BORDER_REFLECT: {
        long j = mod_nonneg(i, 2 * n);
        return j >= n ? 2 * n - 1 - j : j;
    }
    case GI_BORDER_MIRROR: {
        if (n == 1) return 0;
        long j = mod_nonneg(i, 2 * n - 2);
        return j >= n ? 2 * n - 2 - j : j;
    }
    case GI_BORDER_WRAP:
        return mod_nonneg(i, n);
    }
    return -1;
}

static const struct {
    const char *name;
    gi_border_mode mode;
} border_names[] = {
    {"zero", GI_BORDER_ZERO},           {"constant", GI_BORDER_ZERO},
    {"replicate", GI_BORDER_REPLICATE}, {"clamp", GI_BORDER_REPLICATE},
    {"nearest", GI_BORDER_REPLICATE},   {"edge", GI_BORDER_REPLICATE},
    {"reflect", GI_BORDER_REFLECT},     {"symmetric", GI_BORDER_REFLECT},
    {"mirror", GI_BORDER_MIRROR},       {"reflect101", GI_BORDER_MIRROR},
    {"wrap", GI_BORDER_WRAP},           {"periodic", GI_BORDER_WRAP},
    {"tile", GI_BORDER_WRAP},
};

int gi_border_parse(const char *name, gi_border_mode *mode)
{
    if (!name || !mode) return -1;
    for (size_t k = 0; k < sizeof border_names / sizeof border_names[0]; k++) {
        if (strcasecmp(name, border_names[k].name) == 0) {
            *mode = border_names[k].mode;
            return 0;
        }
    }
    return -1;
}

const char *gi_border_name(gi_border_mode mode)
{
    static const char *const names[] = {"zero", "replicate", "reflect", "mirror", "wrap"};
    return (unsigned)mode < 5 ? names[mode] : "?";
}

const char *gi_border_pattern(gi_border_mode mode)
{
    static const char *const patterns[] = {"00|abcd|00", "aa|abcd|dd", "ba|abcd|dc",
                                           "cb|abcd|cb", "cd|abcd|ab"};
    return (unsigned)mode < 5 ? patterns[mode] : "?";
}
