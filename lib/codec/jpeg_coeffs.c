/* The coefficients' one allocation (jpeg_coeffs.h). */
#include "jpeg_coeffs.h"

#include <stdlib.h>
#include <string.h>

void gi__jpeg_coeffs_free(gi_jpeg_coeffs *c)
{
    if (!c) return;
    free(c->storage);
    memset(c, 0, sizeof *c);
}
