/* The nvJPEG codecs in a build without nvJPEG: every answer says so. */
#include "gi_error.h"
#include "jpeg_nvjpeg.h"

int gi__nvjpeg_compiled(void)
{
    return 0;
}

void gi__nvjpeg_start(void)
{
}

int gi__nvjpeg_has_engines(void)
{
    return 0;
}

gi_status gi__nvjpeg_load(gi_image *img, const uint8_t *bytes, size_t size, const char *name,
                          const gi_load_limits *limits)
{
    (void)img;
    (void)bytes;
    (void)size;
    (void)limits;
    return gi__fail(GI_ERR_UNSUPPORTED, "%s: this gpuimg was built without nvJPEG", name);
}

const char *gi__nvjpeg_last_decoder(void)
{
    return "nvjpeg";
}

gi_status gi__nvjpeg_encode(const gi_image *img, int quality, const char *name, uint8_t **bytes,
                            size_t *size)
{
    (void)img;
    (void)quality;
    *bytes = NULL;
    *size = 0;
    return gi__fail(GI_ERR_UNSUPPORTED, "%s: this gpuimg was built without nvJPEG", name);
}
