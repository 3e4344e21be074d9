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

gi_status gi__nvjpeg_batch_take(int capacity, gi__nvjpeg_batch **out)
{
    (void)capacity;
    *out = NULL;
    return gi__fail(GI_ERR_UNSUPPORTED, "this gpuimg was built without nvJPEG");
}

/* No batch is ever made here, so none of these is reached. */
void gi__nvjpeg_batch_release(gi__nvjpeg_batch *b)
{
    (void)b;
}

int gi__nvjpeg_batch_capacity(const gi__nvjpeg_batch *b)
{
    (void)b;
    return 0;
}

gi_status gi__nvjpeg_batch_add(gi__nvjpeg_batch *b, const uint8_t *bytes, size_t size,
                               const char *name, const gi_load_limits *limits, int *slot)
{
    (void)b;
    (void)bytes;
    (void)size;
    (void)limits;
    (void)slot;
    return gi__fail(GI_ERR_UNSUPPORTED, "%s: this gpuimg was built without nvJPEG", name);
}

void gi__nvjpeg_batch_decode(gi__nvjpeg_batch *b)
{
    (void)b;
}

gi_status gi__nvjpeg_batch_result(const gi__nvjpeg_batch *b, int slot, gi__device_pixels *px,
                                  const char **decoded_by)
{
    (void)b;
    (void)slot;
    (void)px;
    (void)decoded_by;
    return gi__fail(GI_ERR_UNSUPPORTED, "this gpuimg was built without nvJPEG");
}

gi_status gi__nvjpeg_batch_output(gi__nvjpeg_batch *b, int slot, int width, int height,
                                  int channels, gi__device_pixels *px)
{
    (void)b;
    (void)slot;
    (void)width;
    (void)height;
    (void)channels;
    (void)px;
    return gi__fail(GI_ERR_UNSUPPORTED, "this gpuimg was built without nvJPEG");
}

void gi__nvjpeg_batch_clear(gi__nvjpeg_batch *b)
{
    (void)b;
}

gi_status gi__nvjpeg_encode_device(const gi__device_pixels *px, int quality, const char *name,
                                   uint8_t **bytes, size_t *size)
{
    (void)px;
    (void)quality;
    *bytes = NULL;
    *size = 0;
    return gi__fail(GI_ERR_UNSUPPORTED, "%s: this gpuimg was built without nvJPEG", name);
}
