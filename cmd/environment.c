/* The command line's environment (environment.h). */
#include "environment.h"

#include <stdio.h>
#include <stdlib.h>

#include "options.h"

static cli_environment env;

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

void cli_environment_read(void)
{
    env.server = value_of("GPUIMG_SERVER");
}
