/* The environment variables of the command line, read once as gpuimg
 * starts (main), each value checked: a bad one is named and the command
 * does not run. The library's own (GPUIMG_CPU_ISA, ...) are checked at the
 * same moment through gi_check_environment. */
#ifndef GPUIMG_CMD_ENVIRONMENT_H
#define GPUIMG_CMD_ENVIRONMENT_H

#include "gpuimg.h"

typedef struct cli_environment {
    gi_device device;              /* GPUIMG_DEVICE=auto|cpu|cuda (any case): --device's default */
    unsigned long long max_pixels; /* GPUIMG_MAX_PIXELS=N >= 1: --max-pixels's; 0: unset */
    int auto_orient;               /* GPUIMG_AUTO_ORIENT=0|1: --auto-orient's */
    const char *server;            /* GPUIMG_SERVER: the server's socket, "off", or NULL */
} cli_environment;

/* Reads and checks the variables. 0, or EXIT_USAGE after printing the
 * first bad one. */
int cli_environment_read(void);
/* What cli_environment_read found (the defaults before it ran). */
const cli_environment *cli_env(void);

#endif
