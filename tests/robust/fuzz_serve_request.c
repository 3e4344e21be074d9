/* libFuzzer target: the request decoder of gpuimg serve
 * (lib/serve/request.c), which reads what any local process may send.
 * The first byte says how many descriptors came before the job (times
 * 17, past the server's bound too); the rest is the JOB payload, and also
 * an ITEM payload for the client's decoder. Oracles: a job that decodes
 * is inside every bound the server relies on (steps, enums, descriptor
 * indexes, one-component output names, finite masks), and encoding it
 * again gives the same bytes (the decoder drops or invents nothing). */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "serve/request.h"

static int one_component(const char *name)
{
    return name && *name && !strchr(name, '/') && strcmp(name, ".") != 0 &&
           strcmp(name, "..") != 0;
}

static void check_step(const gi_op *op)
{
    FUZZ_REQUIRE((unsigned)op->kind <= GI_OP_CROP);
    if (op->kind == GI_OP_BLUR) {
        FUZZ_REQUIRE(isfinite(op->blur.sigma));
        FUZZ_REQUIRE(op->blur.radius >= -1 && op->blur.radius <= GI_BLUR_MAX_RADIUS);
        FUZZ_REQUIRE((unsigned)op->blur.border.mode <= GI_BORDER_WRAP);
    }
    if (op->kind == GI_OP_CONVOLVE) {
        const gi_convolve_params *c = &op->convolve;
        FUZZ_REQUIRE(c->width >= 1 && c->width <= GI_CONVOLVE_MAX_SIZE);
        FUZZ_REQUIRE(c->height >= 1 && c->height <= GI_CONVOLVE_MAX_SIZE);
        for (int i = 0; i < c->width * c->height; i++) FUZZ_REQUIRE(isfinite(c->mask[i]));
    }
    if (op->kind == GI_OP_TRANSFORM) FUZZ_REQUIRE((unsigned)op->transform <= GI_FLIP_V);
    if (op->kind == GI_OP_RESIZE) {
        FUZZ_REQUIRE(isfinite(op->resize.scale));
        FUZZ_REQUIRE((unsigned)op->resize.filter <= GI_RESIZE_NEAREST);
        FUZZ_REQUIRE((unsigned)op->resize.fit <= GI_FIT_COVER);
    }
}

static void check_job(const gi__serve_job *job, int n_fds)
{
    FUZZ_REQUIRE(job->command);
    FUZZ_REQUIRE(job->opts.job.n_steps >= 1 && job->opts.job.n_steps <= GI_MAX_STEPS);
    for (int i = 0; i < job->opts.job.n_steps; i++) check_step(&job->opts.job.steps[i]);
    FUZZ_REQUIRE((unsigned)job->opts.device <= GI_DEVICE_CUDA);
    FUZZ_REQUIRE((unsigned)job->opts.job.save.format <= GI_FORMAT_TIFF);
    FUZZ_REQUIRE(job->n_items >= 1 && job->n_items <= GI__SERVE_MAX_ITEMS);
    for (size_t i = 0; i < job->n_items; i++) {
        const gi__serve_item *it = &job->items[i];
        FUZZ_REQUIRE(it->in && it->out);
        FUZZ_REQUIRE(it->in_fd >= -1 && it->in_fd < n_fds);
        FUZZ_REQUIRE(it->dir_fd >= -1 && it->dir_fd < n_fds);
        FUZZ_REQUIRE(it->out_fd >= -1 && it->out_fd < n_fds);
        if (it->problem) continue;
        if (it->dir_fd >= 0) FUZZ_REQUIRE(one_component(it->out_name) && it->out_fd < 0);
        else FUZZ_REQUIRE(it->out_fd >= 0 && !it->out_name);
        FUZZ_REQUIRE(it->in_fd >= 0 || it->in_errno > 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int n_fds = data[0] * 17;
    gi__serve_job job;
    if (gi__serve_job_decode(data + 1, size - 1, n_fds, &job) == GI_OK) {
        check_job(&job, n_fds);
        gi__put w = {0};
        FUZZ_REQUIRE(gi__serve_job_encode(job.command, job.build, &job.opts, job.items,
                                          job.n_items, &w) == 0);
        FUZZ_REQUIRE(w.size == size - 1 && memcmp(w.data, data + 1, w.size) == 0);
        free(w.data);
        gi__serve_job_free(&job);
    }
    gi_batch_item it = {0};
    size_t index;
    if (gi__serve_result_decode(data + 1, size - 1, 64, &index, &it) == 0) {
        FUZZ_REQUIRE(index < 64 && (unsigned)it.status <= GI_ITEM_SKIPPED);
        /* the texts are strings inside the payload */
        const char *texts[] = {it.choice, it.note, it.metadata_note, it.codecs_note};
        for (int t = 0; t < 4; t++)
            FUZZ_REQUIRE(texts[t] && (!*texts[t] || ((const uint8_t *)texts[t] > data &&
                                                     (const uint8_t *)texts[t] + strlen(texts[t]) <
                                                         data + size)));
        gi_free(it.reason);
    }
    return 0;
}
