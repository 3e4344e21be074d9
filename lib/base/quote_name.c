/* gi_quote_name: file names in messages, quoted where they would not
 * print as text (gpuimg.h says how). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuimg.h"

#define RING 4

typedef struct {
    char *buf[RING];
    size_t cap[RING];
    int next;
} quote_ring;

static pthread_key_t ring_key;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;

static void free_ring(void *p)
{
    quote_ring *r = p;
    for (int i = 0; i < RING; i++) free(r->buf[i]);
    free(r);
}

static void make_key(void)
{
    (void)pthread_key_create(&ring_key, free_ring);
}

/* The length of the UTF-8 character of printable text at s (not a C0 or
 * C1 control, not DEL, well formed), or 0. */
static size_t printable_char(const unsigned char *s)
{
    if (s[0] >= 0x20 && s[0] < 0x7f) return 1;
    size_t len = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0) return 0; /* C1 controls, U+0080..U+009F */
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return len;
}

static int needs_quoting(const char *name)
{
    if (!*name) return 1; /* '' as ls prints it: "convert '' x.png" said ": No such file" */
    for (const unsigned char *p = (const unsigned char *)name; *p;) {
        size_t n = printable_char(p);
        if (!n) return 1;
        p += n;
    }
    return 0;
}

/* The escape ls writes inside $'...' for one byte. */
static int escape_byte(unsigned char c, char *out)
{
    static const char named[] = "\a\b\t\n\v\f\r";
    static const char letters[] = "abtnvfr";
    const char *hit = c ? strchr(named, c) : NULL;
    if (hit) return sprintf(out, "\\%c", letters[hit - named]);
    return sprintf(out, "\\%03o", c);
}

/* Writes the quoted form into out (at most 7 bytes per byte of name, and
 * 3 more): printable runs in '...' (a ' in them as '\''), the rest in
 * $'...'. */
static void quote_into(const char *name, char *out)
{
    char *o = out;
    int in_plain = 0, in_escaped = 0;
    if (!printable_char((const unsigned char *)name)) o += sprintf(o, "''"); /* as ls does */
    for (const unsigned char *p = (const unsigned char *)name; *p;) {
        size_t n = printable_char(p);
        if (n) {
            if (in_escaped) *o++ = '\'', in_escaped = 0;
            if (!in_plain) *o++ = '\'', in_plain = 1;
            if (*p == '\'') {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                memcpy(o, p, n);
                o += n;
            }
            p += n;
        } else {
            if (in_plain) *o++ = '\'', in_plain = 0;
            if (!in_escaped) o += sprintf(o, "$'"), in_escaped = 1;
            o += escape_byte(*p++, o);
        }
    }
    if (in_plain || in_escaped) *o++ = '\'';
    *o = '\0';
}

const char *gi_quote_name(const char *name)
{
    if (!name || !needs_quoting(name)) return name;
    pthread_once(&ring_once, make_key);
    quote_ring *r = pthread_getspecific(ring_key);
    if (!r && (r = calloc(1, sizeof *r)) && pthread_setspecific(ring_key, r) != 0) {
        free(r);
        r = NULL;
    }
    if (!r) return "(a name that cannot be printed: out of memory)";
    int i = r->next;
    r->next = (i + 1) % RING;
    size_t need = strlen(name) * 7 + 8;
    if (r->cap[i] < need) {
        char *bigger = realloc(r->buf[i], need);
        if (!bigger) return "(a name that cannot be printed: out of memory)";
        r->buf[i] = bigger;
        r->cap[i] = need;
    }
    quote_into(name, r->buf[i]);
    return r->buf[i];
}
