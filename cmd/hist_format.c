/* Histogram output formats. Columns are named by channel so that the text
 * and CSV forms read naturally in a spreadsheet or with awk. */
#include "hist_format.h"
#include "json_text.h"

static const char *const channel_names[4][4] = {
    {"gray"}, {"gray", "alpha"}, {"r", "g", "b"}, {"r", "g", "b", "a"}};

/* The smallest pixel value that falls in bin b (of 2^depth values). */
static long bin_value(long b, const gi_histogram *h)
{
    const long values = h->depth == 16 ? 65536 : 256;
    return (b * values + h->bins - 1) / h->bins;
}

static void write_stat_lines(FILE *out, const hist_report *r)
{
    const gi_channel_stats *st = r->stats;
    const int n = r->hist->channels;
    fputs("# min:", out);
    for (int c = 0; c < n; c++) fprintf(out, " %d", st[c].min);
    fputs("\n# max:", out);
    for (int c = 0; c < n; c++) fprintf(out, " %d", st[c].max);
    fputs("\n# mean:", out);
    for (int c = 0; c < n; c++) fprintf(out, " %.3f", st[c].mean);
    fputs("\n# median:", out);
    for (int c = 0; c < n; c++) fprintf(out, " %d", st[c].median);
    fputs("\n# stddev:", out);
    for (int c = 0; c < n; c++) fprintf(out, " %.3f", st[c].stddev);
    fputc('\n', out);
}

static void write_rows(FILE *out, const gi_histogram *h, char sep)
{
    for (int b = 0; b < h->bins; b++) {
        fprintf(out, "%ld", bin_value(b, h));
        for (int c = 0; c < h->channels; c++)
            fprintf(out, "%c%llu", sep, (unsigned long long)h->counts[c][b]);
        fputc('\n', out);
    }
}

static void write_text(FILE *out, const hist_report *r, char sep)
{
    const gi_histogram *h = r->hist;
    const char *const *names = channel_names[h->channels - 1];
    if (sep == ' ') {
        fprintf(out, "# gpuimg hist\n# source: %s\n# size: %dx%d\n# channels:", r->source,
                r->width, r->height);
        for (int c = 0; c < h->channels; c++) fprintf(out, " %s", names[c]);
        fputc('\n', out);
        if (r->stats) write_stat_lines(out, r);
    }
    fputs("value", out);
    for (int c = 0; c < h->channels; c++) fprintf(out, "%c%s", sep, names[c]);
    fputc('\n', out);
    write_rows(out, h, sep);
}

static void json_stats(FILE *out, const hist_report *r, const char *const *names)
{
    fputs(",\n  \"stats\": {", out);
    for (int c = 0; c < r->hist->channels; c++) {
        const gi_channel_stats *st = &r->stats[c];
        fprintf(out, "%s\n    \"%s\": {\"min\": %d, \"max\": %d, \"median\": %d, "
                     "\"mean\": %.6f, \"stddev\": %.6f}",
                c ? "," : "", names[c], st->min, st->max, st->median, st->mean, st->stddev);
    }
    fputs("\n  }", out);
}

static void write_json(FILE *out, const hist_report *r)
{
    const gi_histogram *h = r->hist;
    const char *const *names = channel_names[h->channels - 1];
    fputs("{\n  \"source\": ", out);
    json_write_string(out, r->source);
    fprintf(out, ",\n  \"width\": %d,\n  \"height\": %d,\n  \"bins\": %d,\n  \"channels\": [",
            r->width, r->height, h->bins);
    for (int c = 0; c < h->channels; c++) fprintf(out, "%s\"%s\"", c ? ", " : "", names[c]);
    fputs("],\n  \"values\": [", out);
    for (int b = 0; b < h->bins; b++) fprintf(out, "%s%ld", b ? ", " : "", bin_value(b, h));
    fputs("],\n  \"counts\": {", out);
    for (int c = 0; c < h->channels; c++) {
        fprintf(out, "%s\n    \"%s\": [", c ? "," : "", names[c]);
        for (int b = 0; b < h->bins; b++)
            fprintf(out, "%s%llu", b ? ", " : "", (unsigned long long)h->counts[c][b]);
        fputc(']', out);
    }
    fputs("\n  }", out);
    if (r->stats) json_stats(out, r, names);
    fputs("\n}\n", out);
}

void hist_write(FILE *out, hist_format format, const hist_report *r)
{
    switch (format) {
    case HIST_TEXT: write_text(out, r, ' '); break;
    case HIST_CSV: write_text(out, r, ','); break;
    case HIST_JSON: write_json(out, r); break;
    }
}
