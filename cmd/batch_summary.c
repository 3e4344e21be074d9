/* The --summary-json document:
 *   {"command", "shard", "ok", "failed", "skipped", "not_started",
 *    "elapsed_s", "files": [{"input", "output", "status", "reason"?,
 *    "ms", "megapixels", "stages_ms": {"decode", "startup", "upload",
 *    "kernel", "download", "encode"}}]}
 * status is ok, failed, skipped or not_started (after an interrupt). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "batch_summary.h"
#include "json_text.h"

static const char *const status_names[] = {"not_started", "ok", "failed", "skipped"};

static void write_item(FILE *out, const gi_batch_item *it, int first)
{
    fputs(first ? "\n    {\"input\": " : ",\n    {\"input\": ", out);
    json_write_string(out, it->in);
    fputs(", \"output\": ", out);
    json_write_string(out, it->out);
    fprintf(out, ", \"status\": \"%s\"", status_names[it->status]);
    if (it->reason) {
        fputs(", \"reason\": ", out);
        json_write_string(out, it->reason);
    }
    fprintf(out, ", \"ms\": %.3f, \"megapixels\": %.4f, \"stages_ms\": {", it->ms,
            it->megapixels);
    for (int s = 0; s < GI_STAGE_COUNT; s++)
        fprintf(out, "%s\"%s\": %.3f", s ? ", " : "", gi_stage_name((gi_stage)s), it->stage_ms[s]);
    fputs("}}", out);
}

int batch_summary_check(const cli_common *c)
{
    struct stat st;
    const int exists = stat(c->summary_json, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gpuimg %s: --summary-json %s: is a directory\n", c->command,
                gi_quote_name(c->summary_json));
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode)) return 0;
    gi_output *out;
    if (gi_output_open(&out, c->summary_json) != GI_OK) {
        fprintf(stderr, "gpuimg %s: --summary-json %s\n", c->command, gi_last_error());
        return -1;
    }
    gi_output_close(out, 0);
    return 0;
}

int batch_summary_write(const cli_common *c, const batch_list *list, const progress *p,
                        double elapsed_s, int interrupted)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) {
        fprintf(stderr, "gpuimg %s: --summary-json: out of memory\n", c->command);
        return -1;
    }
    fputs("{\n  \"command\": ", out);
    json_write_string(out, c->command);
    fprintf(out, ",\n  \"shard\": \"%d/%d\",\n  \"ok\": %zu,\n  \"failed\": %zu,\n"
                 "  \"skipped\": %zu,\n  \"not_started\": %zu,\n  \"interrupted\": %s,\n"
                 "  \"elapsed_s\": %.3f,\n  \"files\": [",
            c->shard, c->shard_count, p->ok, p->failed, p->skipped,
            p->total - p->ok - p->failed - p->skipped, interrupted ? "true" : "false", elapsed_s);
    for (size_t i = 0; i < list->count; i++) write_item(out, &list->items[i], i == 0);
    fputs("\n  ]\n}\n", out);
    if (fclose(out) != 0) {
        free(text);
        fprintf(stderr, "gpuimg %s: --summary-json: out of memory\n", c->command);
        return -1;
    }
    gi_status st = gi_write_file_atomic(c->summary_json, text, size);
    free(text);
    if (st != GI_OK) {
        fprintf(stderr, "gpuimg %s: --summary-json: %s\n", c->command, gi_last_error());
        return -1;
    }
    return 0;
}
