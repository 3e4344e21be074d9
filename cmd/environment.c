/* The command line's environment (environment.h). */
#include "environment.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "options.h"

static cli_environment env = {.device = GI_DEVICE_AUTO};

const cli_environment *cli_env(void)
{
    return &env;
}

/* A variable's value, or NULL when it is unset or empty. */
static const char *value_of(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int bad(const char *name, const char *value, const char *want)
{
    fprintf(stderr, "gpuimg: %s='%s': %s\n", name, value, want);
    return EXIT_USAGE;
}

static int read_device(void)
{
    const char *v = value_of("GPUIMG_DEVICE");
    if (!v) return 0;
    if (strcasecmp(v, "auto") == 0) env.device = GI_DEVICE_AUTO;
    else if (strcasecmp(v, "cpu") == 0) env.device = GI_DEVICE_CPU;
    else if (strcasecmp(v, "cuda") == 0) env.device = GI_DEVICE_CUDA;
    else return bad("GPUIMG_DEVICE", v, "not one of auto, cpu, cuda");
    return 0;
}

static int read_max_pixels(void)
{
    const char *v = value_of("GPUIMG_MAX_PIXELS");
    if (!v) return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || errno == ERANGE || n == 0)
        return bad("GPUIMG_MAX_PIXELS", v, "not a whole number of pixels >= 1");
    env.max_pixels = n;
    return 0;
}

static int read_auto_orient(void)
{
    const char *v = value_of("GPUIMG_AUTO_ORIENT");
    if (!v) return 0;
    if ((v[0] != '0' && v[0] != '1') || v[1]) return bad("GPUIMG_AUTO_ORIENT", v, "not 0 or 1");
    env.auto_orient = v[0] == '1';
    return 0;
}

int cli_environment_read(void)
{
    int rc = read_device();
    if (!rc) rc = read_max_pixels();
    if (!rc) rc = read_auto_orient();
    if (rc) return rc;
    env.server = value_of("GPUIMG_SERVER");
    if (gi_check_environment() != GI_OK) {
        fprintf(stderr, "gpuimg: %s\n", gi_last_error());
        return EXIT_USAGE;
    }
    return 0;
}
