/* Options from the table of operation parameters (see op_options.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "op_options.h"

/* The table's message ("sigma '0': must be greater than 0") with the
 * option named as it is typed. */
static int opt_op_param(const cli_option *o, const char *arg)
{
    gi_op *op = o->target;
    if (gi_op_param_parse(gi_op_param_find(op->kind, o->name), arg, op) == GI_OK) return 0;
    fprintf(stderr, "%s: --%s\n", cli_message_prefix, gi_last_error());
    return -1;
}

/* "> 0", ">= 0", "0..1024", "gaussian | box"; "" when any value goes. */
static void range_text(const gi_op_param *p, char *out, size_t size)
{
    out[0] = '\0';
    if (p->type == GI_PARAM_CHOICE) {
        for (int i = 0; p->choices[i]; i++) {
            size_t len = strlen(out);
            snprintf(out + len, size - len, "%s%s", i ? " | " : "", p->choices[i]);
        }
    } else if (p->type == GI_PARAM_DOUBLE || p->type == GI_PARAM_INT) {
        if (isfinite(p->min) && isfinite(p->max)) snprintf(out, size, "%.0f..%.0f", p->min, p->max);
        else if (isfinite(p->min)) snprintf(out, size, "%s %g", p->min_exclusive ? ">" : ">=", p->min);
        else if (isfinite(p->max)) snprintf(out, size, "<= %g", p->max);
    }
}

const char *op_param_help(const gi_op_param *p)
{
    /* one text per parameter of the table, made when first asked */
    static struct {
        const gi_op_param *param;
        char text[512];
    } made[64];
    int i = 0;
    while (i < 64 && made[i].param && made[i].param != p) i++;
    if (i == 64) return p->help;
    if (made[i].param) return made[i].text;
    char range[160];
    range_text(p, range, sizeof range);
    const char *def = p->default_text;
    if (range[0] && def)
        snprintf(made[i].text, sizeof made[i].text, "%s (%s, default %s)", p->help, range, def);
    else if (range[0] || def)
        snprintf(made[i].text, sizeof made[i].text, "%s (%s%s)", p->help, def ? "default " : "",
                 def ? def : range);
    else
        snprintf(made[i].text, sizeof made[i].text, "%s", p->help);
    made[i].param = p;
    return made[i].text;
}

int op_options(gi_op *op, cli_option *out)
{
    int n_params, n = 0;
    const gi_op_param *p = gi_op_params(op->kind, &n_params);
    for (int i = 0; i < n_params && n < OP_OPTIONS_MAX; i++) {
        if (p[i].form != GI_PARAM_OPTION) continue;
        out[n++] = (cli_option){p[i].name, p[i].short_name, p[i].metavar, op_param_help(&p[i]),
                                opt_op_param, op};
    }
    out[n] = (cli_option){0};
    return n;
}
