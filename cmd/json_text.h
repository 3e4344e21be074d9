/* JSON string output shared by the commands that write JSON. */
#ifndef GPUIMG_JSON_TEXT_H
#define GPUIMG_JSON_TEXT_H

#include <stdio.h>

/* Writes s as a quoted JSON string, escaping quotes, backslashes and
 * control characters; bytes that are not UTF-8 become \u00XX. */
void json_write_string(FILE *out, const char *s);

#endif
