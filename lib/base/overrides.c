/* The environment, read once (overrides.h). */
#include "overrides.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gi_error.h"

const char *const gi__override_names[GI__OVERRIDE_COUNT] = {
    "GPUIMG_CPU_ISA", "GPUIMG_JPEG_ARITHMETIC", "GPUIMG_JPEG_ENTROPY",
    "GPUIMG_TEST_FAIL_DEVICE_ALLOC", "GPUIMG_TEST_FAIL_GPU", "GPUIMG_TEST_SPLIT_SMALL"};

/* One variable's values, each with the number it stands for. */
typedef struct {
    const char *word;
    int value;
} choice;

static const choice isa_choices[] = {{"generic", GI__ISA_BASE}, {"base", GI__ISA_BASE},
                                     {"avx2", GI__ISA_AVX2},    {"avxvnni", GI__ISA_AVXVNNI},
                                     {"avx512", GI__ISA_AVX512}, {NULL, 0}};
static const choice place_choices[] = {{"cpu", GI__FORCE_CPU}, {"gpu", GI__FORCE_GPU}, {NULL, 0}};
static const choice flag_choices[] = {{"0", 0}, {"1", 1}, {NULL, 0}};

/* value's number among `choices` into *out (left alone when unset); -1 and
 * a message naming the variable when it is none of them. */
static int parse_choice(const char *name, const char *value, const choice *choices, int *out)
{
    if (!value || !*value) return 0;
    for (const choice *c = choices; c->word; c++)
        if (strcmp(value, c->word) == 0) {
            *out = c->value;
            return 0;
        }
    char words[80] = "";
    for (const choice *c = choices; c->word; c++) {
        size_t n = strlen(words);
        snprintf(words + n, sizeof words - n, "%s%s", n ? ", " : "", c->word);
    }
    gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%.60s': not one of %s", name, value, words);
    return -1;
}

/* A GPU index 0..63 into *out (left alone when unset); -1 and a message
 * naming the variable when it is none. */
static int parse_gpu_index(const char *name, const char *value, int *out)
{
    if (!value || !*value) return 0;
    char *end;
    long v = strtol(value, &end, 10);
    if (end == value || *end || value[0] == '-' || value[0] == '+' || v > 63) {
        gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%.60s': not a GPU index (0 to 63)", name, value);
        return -1;
    }
    *out = (int)v;
    return 0;
}

gi_status gi__overrides_parse(const char *(*lookup)(const char *name, void *user), void *user,
                              gi__overrides *out)
{
    const char *value[GI__OVERRIDE_COUNT];
    for (int i = 0; i < GI__OVERRIDE_COUNT; i++) value[i] = lookup(gi__override_names[i], user);
    int isa = GI__ISA_AVX512, arithmetic = GI__FORCE_NONE, entropy = GI__FORCE_NONE, fail = 0,
        fail_gpu = -1, split_small = 0;
    int bad = parse_choice(gi__override_names[0], value[0], isa_choices, &isa);
    bad = bad || parse_choice(gi__override_names[1], value[1], place_choices, &arithmetic);
    bad = bad || parse_choice(gi__override_names[2], value[2], place_choices, &entropy);
    bad = bad || parse_choice(gi__override_names[3], value[3], flag_choices, &fail);
    bad = bad || parse_gpu_index(gi__override_names[4], value[4], &fail_gpu);
    bad = bad || parse_choice(gi__override_names[5], value[5], flag_choices, &split_small);
    if (bad) { /* the defaults throughout: a half-read environment would mislead */
        *out = (gi__overrides){.isa_cap = GI__ISA_AVX512, .fail_gpu = -1};
        return GI_ERR_INVALID_ARGUMENT;
    }
    *out = (gi__overrides){.isa_cap = (gi__isa)isa,
                           .generic_kernels = value[0] && strcmp(value[0], "generic") == 0,
                           .jpeg_arithmetic = (gi__force)arithmetic,
                           .jpeg_entropy = (gi__force)entropy,
                           .fail_device_alloc = fail,
                           .fail_gpu = fail_gpu,
                           .split_small = split_small};
    return GI_OK;
}

static gi__overrides parsed;
static gi_status parsed_status;
static char parsed_why[160];
static pthread_once_t parse_once = PTHREAD_ONCE_INIT;

static const char *from_environment(const char *name, void *user)
{
    (void)user;
    return getenv(name);
}

/* Runs once; its message is kept, as gi__fail's is this thread's alone. */
static void parse_environment(void)
{
    parsed_status = gi__overrides_parse(from_environment, NULL, &parsed);
    if (parsed_status != GI_OK) snprintf(parsed_why, sizeof parsed_why, "%s", gi_last_error());
}

const gi__overrides *gi__process_overrides(void)
{
    pthread_once(&parse_once, parse_environment);
    return &parsed;
}

gi_status gi_check_environment(void)
{
    pthread_once(&parse_once, parse_environment);
    return parsed_status == GI_OK ? GI_OK : gi__fail(parsed_status, "%s", parsed_why);
}
