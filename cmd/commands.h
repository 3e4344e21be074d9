/* One function per command; each parses its own options (argv[0] is the
 * command name) and returns the exit status. */
#ifndef GPUIMG_COMMANDS_H
#define GPUIMG_COMMANDS_H

#include "options.h"

int cmd_blur(int argc, char **argv);
int cmd_sobel(int argc, char **argv);
int cmd_transpose(int argc, char **argv);
int cmd_rotate(int argc, char **argv);
int cmd_flip(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_convolve(int argc, char **argv);
int cmd_resize(int argc, char **argv);
int cmd_crop(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_thumbnail(int argc, char **argv);
int cmd_pipe(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* The image commands are steps: each parses its own options (argv[0] is
 * its name) and the image options (--border, --border-value) into *step,
 * leaving the file arguments in files[0..count). Returns CLI_RUN, or an
 * exit status (after --help, or a usage error). cmd_blur and its siblings
 * are run_step_command over their step; pipe parses each of its steps
 * with the same function. */
typedef int (*step_parser)(int argc, char **argv, cli_common *common, gi_op *step, char ***files,
                           int *count);
int step_blur(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count);
int step_sobel(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count);
int step_convolve(int argc, char **argv, cli_common *common, gi_op *step, char ***files,
                  int *count);
int step_transpose(int argc, char **argv, cli_common *common, gi_op *step, char ***files,
                   int *count);
int step_rotate(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count);
int step_flip(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count);
int step_resize(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count);
int step_crop(int argc, char **argv, cli_common *common, gi_op *step, char ***files, int *count);
int step_convert(int argc, char **argv, cli_common *common, gi_op *step, char ***files,
                 int *count);

#endif
