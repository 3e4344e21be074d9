/* Runs a fuzz target's LLVMFuzzerTestOneInput once on each file named, or
 * on every file in each directory named: the regression corpus replayed
 * without libFuzzer (gcc, valgrind, any sanitizer). Exit 0 when every input
 * went through; a crash is the sanitizer's or abort's. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0, n;
    uint8_t *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: cannot read it\n", path);
        free(buf);
        return -1;
    }
    /* An exact-size copy, so reading one byte past the input is caught. */
    uint8_t *exact = malloc(len ? len : 1);
    if (len) memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_path(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return ++*count, replay_file(path);
    struct dirent **names;
    int n = scandir(path, &names, NULL, by_name), failed = n < 0;
    for (int i = 0; i < n; i++) {
        char child[4096];
        if (names[i]->d_name[0] != '.') {
            snprintf(child, sizeof child, "%s/%s", path, names[i]->d_name);
            failed |= replay_path(child, count) != 0;
        }
        free(names[i]);
    }
    if (n >= 0) free(names);
    return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
    int failed = 0, count = 0;
    for (int i = 1; i < argc; i++) failed |= replay_path(argv[i], &count) != 0;
    printf("replayed %d input%s\n", count, count == 1 ? "" : "s");
    return failed;
}
