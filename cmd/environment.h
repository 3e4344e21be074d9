/* The environment as gpuimg starts (main): the server's socket. The
 * variables that stand for an option (GPUIMG_DEVICE, GPUIMG_MAX_PIXELS,
 * GPUIMG_AUTO_ORIENT) are checked by that option's own parser, and the
 * library's (GPUIMG_CPU_ISA, ...) through gi_check_environment, both in
 * cli_apply_environment (options.c), so every message has one form. */
#ifndef GPUIMG_CMD_ENVIRONMENT_H
#define GPUIMG_CMD_ENVIRONMENT_H

#include "gpuimg.h"

typedef struct cli_environment {
    const char *server;            /* GPUIMG_SERVER: the server's socket, "off", or NULL */
} cli_environment;

/* Reads GPUIMG_SERVER. */
void cli_environment_read(void);
/* What cli_environment_read found (the defaults before it ran). */
const cli_environment *cli_env(void);

#endif
