/* An item's files by name, or through the descriptors handed over with it. */
#include <errno.h>
#include <string.h>

#include "batch_files.h"
#include "codec/file_io.h"
#include "base/gi_error.h"

gi_status gi__item_read(const gi_batch_item *it, uint64_t max_bytes, uint8_t **bytes,
                        size_t *size)
{
    const gi_item_files *f = it->files;
    if (!f) return gi__read_file(it->in, max_bytes, bytes, size);
    *bytes = NULL;
    *size = 0;
    if (f->in_fd < 0) return gi__fail(GI_ERR_IO, "%s: %s", gi_quote_name(it->in), strerror(f->in_errno));
    return gi__read_fd(f->in_fd, it->in, max_bytes, bytes, size);
}

/* Puts a handed-over item's output in place, unless its caller has gone
 * meanwhile: then the temporary file goes and the item fails. */
static gi_status close_output(const gi_batch_item *it, gi_output *out, gi_status st)
{
    const volatile int *abandon = it->files->abandon;
    int gone = abandon && __atomic_load_n(abandon, __ATOMIC_ACQUIRE);
    gi_status closed = gi_output_close(out, st == GI_OK && !gone);
    if (st == GI_OK && gone) return gi__fail(GI_ERR_IO, "%s: not written: abandoned", gi_quote_name(it->out));
    return st != GI_OK ? st : closed;
}

static gi_status open_output(const gi_batch_item *it, gi_output **out)
{
    const gi_item_files *f = it->files;
    return f->out_dir_fd < 0 ? gi__output_open_fd(out, f->out_fd, it->out)
                             : gi__output_open_at(out, f->out_dir_fd, f->out_name, it->out);
}

gi_status gi__item_write(const gi_batch_item *it, const void *bytes, size_t size)
{
    if (!it->files) return gi_write_file_atomic(it->out, bytes, size);
    gi_output *out;
    gi_status st = open_output(it, &out);
    return st != GI_OK ? st : close_output(it, out, gi__output_write(out, bytes, size));
}

gi_status gi__item_save(const gi_batch_item *it, const gi_image *img, const gi_save_options *save)
{
    if (!it->files) return gi_save_file(img, it->out, save);
    gi_output *out;
    gi_status st = open_output(it, &out);
    return st != GI_OK ? st : close_output(it, out, gi_output_image(out, img, save));
}

int gi__item_output_exists(const gi_batch_item *it)
{
    struct stat st;
    const gi_item_files *f = it->files;
    if (f && f->out_dir_fd < 0) return 0; /* a stream is never there already */
    return (f ? fstatat(f->out_dir_fd, f->out_name, &st, 0) : stat(it->out, &st)) == 0;
}

int gi__item_image_size(const gi_batch_item *it, gi__image_size *size)
{
    return it->files ? gi__read_image_size_fd(it->files->in_fd, size)
                     : gi__read_image_size(it->in, size);
}

double gi__item_estimate_work(const gi_batch_item *it, gi_format out_format)
{
    return it->files ? gi__estimate_work_fd(it->files->in_fd, out_format)
                     : gi__estimate_work(it->in, out_format);
}
