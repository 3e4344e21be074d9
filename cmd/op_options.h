/* An operation's options, made from the library's table of parameters
 * (gpuimg.h, parameters): the names, value names, help, ranges and
 * defaults are the table's, and values are checked by its
 * gi_op_param_parse, with its messages. */
#ifndef GPUIMG_OP_OPTIONS_H
#define GPUIMG_OP_OPTIONS_H

#include "options.h"

#define OP_OPTIONS_MAX 8

/* Writes the options (GI_PARAM_OPTION parameters) of op->kind into out
 * (room for OP_OPTIONS_MAX + 1), each storing into op, followed by {0}.
 * Returns how many. */
int op_options(gi_op *op, cli_option *out);

/* What --help says of a parameter: its help sentence, range and default,
 * as "Gaussian standard deviation (> 0, default 1)". */
const char *op_param_help(const gi_op_param *p);

#endif
