/* JSON strings from C strings that may hold any bytes (file names). */
#include "json_text.h"

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static int utf8_length(const unsigned char *s)
{
    int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3
          : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 2 && s[0] < 0xC2) return 0; /* overlong */
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return n;
}

void json_write_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        int n = utf8_length(p);
        if (n == 1 && (*p == '"' || *p == '\\')) fprintf(out, "\\%c", *p);
        else if (n == 1 && *p < 0x20) fprintf(out, "\\u%04x", *p);
        else if (n > 0) fwrite(p, 1, (size_t)n, out);
        /* A byte that is not UTF-8 (a Latin-1 file name, say) is written
         * as the code point of the same number, so the JSON stays valid. */
        else fprintf(out, "\\u%04x", *p);
        p += n > 0 ? n : 1;
    }
    fputc('"', out);
}
