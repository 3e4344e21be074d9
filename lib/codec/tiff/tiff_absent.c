/* TIFF in a build without libtiff: every file is refused, saying why. */
#include "gi_tiff.h"

#include "base/gi_error.h"

#define NO_TIFF "this build has no TIFF support (libtiff was not found when gpuimg was built)"

int gi__tiff_available(void)
{
    return 0;
}

gi_status gi__tiff_decode(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits)
{
    (void)img;
    (void)bytes;
    (void)size;
    (void)limits;
    return gi__fail(GI_ERR_UNSUPPORTED, "%s: %s", name, NO_TIFF);
}

int gi__tiff_pages_note(const uint8_t *bytes, size_t size, char *note, size_t note_size)
{
    (void)bytes;
    (void)size;
    (void)note;
    (void)note_size;
    return 0;
}

gi_status gi__tiff_encode(const gi_image *img, const gi_save_options *opts, uint8_t **bytes,
                          size_t *size)
{
    (void)img;
    (void)opts;
    *bytes = NULL;
    *size = 0;
    return gi__fail(GI_ERR_UNSUPPORTED, NO_TIFF);
}

int gi__tiff_metadata_read(const uint8_t *bytes, size_t size, gi_metadata *out)
{
    (void)bytes;
    (void)size;
    (void)out;
    return 0;
}
