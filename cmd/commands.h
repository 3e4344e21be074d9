/* One function per command; each parses its own options (argv[0] is the
 * command name) and returns the exit status. */
#ifndef GPUIMG_COMMANDS_H
#define GPUIMG_COMMANDS_H

int cmd_blur(int argc, char **argv);
int cmd_sobel(int argc, char **argv);
int cmd_transpose(int argc, char **argv);
int cmd_rotate(int argc, char **argv);
int cmd_flip(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_convolve(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_info(int argc, char **argv);

#endif
