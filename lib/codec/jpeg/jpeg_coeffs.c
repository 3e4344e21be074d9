/* The coefficients' one allocation (jpeg_coeffs.h). */
#include "jpeg_coeffs.h"

#include <string.h>

#include "jpeg_deferred.h"
#include "base/pixel_alloc.h"

void gi__jpeg_coeffs_free(gi_jpeg_coeffs *c)
{
    if (!c) return;
    gi__pixels_free(c->storage); /* gi__pixels_alloc_for_device'd by jpeg_parse.c */
    gi__pixels_free(c->ac_nonzero);
    gi__jpeg_deferred_free(c->deferred);
    memset(c, 0, sizeof *c);
}
