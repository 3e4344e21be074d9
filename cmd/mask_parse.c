/* Mask text: "1 2 1; 2 4 2; 1 2 1", or the same with one row per line. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mask_parse.h"

#define MAX_MASK_FILE (1 << 20)

static int fail(char *why, size_t size, const char *msg, int row)
{
    snprintf(why, size, "%s (row %d)", msg, row);
    return -1;
}

/* Ends the current row: checks its width against the first row's. */
static int end_row(parsed_mask *m, int count, char *why, size_t size)
{
    if (count == 0) return 0; /* blank line */
    if (m->height == 0) m->width = count;
    else if (count != m->width) return fail(why, size, "rows have different lengths", m->height + 1);
    if (++m->height > GI_CONVOLVE_MAX_SIZE) return fail(why, size, "more than 31 rows", m->height);
    return 0;
}

int mask_parse_text(const char *text, parsed_mask *m, char *why, size_t why_size)
{
    int count = 0;
    m->width = m->height = 0;
    for (const char *p = text;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r') p++;
        if (*p == '#')
            while (*p && *p != '\n') p++;
        if (*p == ';' || *p == '\n' || *p == '\0') {
            if (end_row(m, count, why, why_size)) return -1;
            count = 0;
            if (*p++ == '\0') break;
            continue;
        }
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno == ERANGE)
            return fail(why, why_size, "not a number", m->height + 1);
        if (count >= GI_CONVOLVE_MAX_SIZE)
            return fail(why, why_size, "more than 31 values in a row", m->height + 1);
        if (m->height >= GI_CONVOLVE_MAX_SIZE)
            return fail(why, why_size, "more than 31 rows", m->height + 1);
        m->values[m->height * GI_CONVOLVE_MAX_SIZE + count++] = v;
        p = end;
    }
    if (m->height == 0) return fail(why, why_size, "no values", 0);
    /* Pack rows tightly: width values each. */
    for (int r = 1; r < m->height; r++)
        memmove(m->values + r * m->width, m->values + r * GI_CONVOLVE_MAX_SIZE,
                sizeof(double) * (size_t)m->width);
    return 0;
}

int mask_parse_spec(const char *spec, parsed_mask *m, char *why, size_t why_size)
{
    struct stat st;
    if (stat(spec, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (mask_parse_text(spec, m, why, why_size) == 0) return 0;
        /* Text with no separators and a letter was most likely a file name. */
        int looks_like_name = !strpbrk(spec, " \t;,\n");
        for (const char *p = spec; looks_like_name && *p; p++)
            if (isalpha((unsigned char)*p) && *p != 'e' && *p != 'E') {
                snprintf(why, why_size, "%s: no such file, and not a mask", spec);
                break;
            }
        return -1;
    }
    FILE *f = fopen(spec, "r");
    if (!f) {
        snprintf(why, why_size, "%s: %s", spec, strerror(errno));
        return -1;
    }
    /* One byte past the limit tells a full-size file from a larger one. */
    char *text = malloc(MAX_MASK_FILE + 2);
    size_t n = text ? fread(text, 1, MAX_MASK_FILE + 1, f) : 0;
    int bad = !text || ferror(f) || n > MAX_MASK_FILE;
    fclose(f);
    if (bad) {
        snprintf(why, why_size, "%s: cannot read it (or over 1 MiB)", spec);
        free(text);
        return -1;
    }
    text[n] = '\0';
    int rc = mask_parse_text(text, m, why, why_size);
    free(text);
    return rc;
}
