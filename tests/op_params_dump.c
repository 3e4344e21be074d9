/* Prints each option of the table of operation parameters as the command
 * line shows it, one per line: COMMAND, -SHORT (or -), --NAME, VALUE NAME
 * (or -) and the --help text, separated by tabs. man_options.sh checks
 * the man page against it. */
#include <stdio.h>

#include "op_options.h"

int main(void)
{
    static const struct {
        gi_op_kind kind;
        const char *command;
    } commands[] = {{GI_OP_BLUR, "blur"},         {GI_OP_SOBEL, "sobel"},
                    {GI_OP_CONVOLVE, "convolve"}, {GI_OP_RESIZE, "resize"},
                    {GI_OP_CROP, "crop"},         {GI_OP_HIST, "hist"},
                    {GI_OP_TRANSFORM, "transpose"}};
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
        int n;
        const gi_op_param *p = gi_op_params(commands[c].kind, &n);
        for (int i = 0; i < n; i++) {
            if (p[i].form != GI_PARAM_OPTION) continue;
            char short_name[3] = {'-', p[i].short_name, 0};
            printf("%s\t%s\t--%s\t%s\t%s\n", commands[c].command,
                   p[i].short_name ? short_name : "-", p[i].name,
                   p[i].metavar ? p[i].metavar : "-", op_param_help(&p[i]));
        }
    }
    return ferror(stdout) ? 1 : 0;
}
