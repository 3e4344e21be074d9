/* The seed paper's input and its check, for both devices. */
#include <math.h>
#include <stdint.h>
#include <stddef.h>

#include "paper_input.h"

void paper_matrix(float *m, int n)
{
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        m[i] = (float)((state >> 40) * (1.0 / 16777216.0));
    }
}

double paper_max_error(const float *in, const float *out, int n)
{
    double worst = 0;
    uint64_t state = 12345;
    for (int s = 0; s < 4096; s++) {
        /* corners and edges first, then random points */
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        int x = s < 4 ? (s & 1) * (n - 1) : (int)((state >> 33) % (uint64_t)n);
        int y = s < 4 ? (s >> 1) * (n - 1) : (int)((state >> 13) % (uint64_t)n);
        double exact = 0;
        for (int j = -2; j <= 2; j++)
            for (int i = -2; i <= 2; i++)
                if (y + j >= 0 && y + j < n && x + i >= 0 && x + i < n)
                    exact += in[(size_t)(y + j) * n + (x + i)];
        double err = fabs(out[(size_t)y * n + x] - exact);
        if (!(err <= worst)) worst = err; /* NaN is the worst of all */
    }
    return worst;
}
