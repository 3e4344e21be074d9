/* The library's environment variables, read once per process: each is
 * looked up once, its value checked, and the parsed result kept for every
 * caller (the ISA choice, the route of a JPEG, the device allocator). A
 * value that is not one of those listed makes gi_check_environment and
 * gi_context_create fail with a message naming the variable; until then
 * the library runs with that variable's default. */
#ifndef GI_OVERRIDES_H
#define GI_OVERRIDES_H

#include <stddef.h>

#include "cpu_isa.h"
#include "gpuimg.h"

/* Where a forced part of the JPEG decoder runs. */
typedef enum {
    GI__FORCE_NONE = 0, /* as the cost model says */
    GI__FORCE_CPU,
    GI__FORCE_GPU,
} gi__force;

typedef struct gi__overrides {
    /* GPUIMG_CPU_ISA=generic|base|avx2|avxvnni|avx512: the widest
     * instruction set the CPU code may use (default: GI__ISA_AVX512, no
     * cap); generic also gives the JPEG decoder its portable kernels */
    gi__isa isa_cap;
    int generic_kernels;
    /* GPUIMG_JPEG_ARITHMETIC=cpu|gpu: where a JPEG's arithmetic half runs
     * once its steps run on CUDA, for every file (to measure the routes
     * against each other) */
    gi__force jpeg_arithmetic;
    /* GPUIMG_JPEG_ENTROPY=cpu|gpu: cpu keeps the Huffman decoding on the
     * codec workers; gpu (the default) lets it go to the device */
    gi__force jpeg_entropy;
    /* GPUIMG_TEST_FAIL_DEVICE_ALLOC=0|1: 1 fails every device allocation,
     * so that tests reach the out-of-memory paths */
    int fail_device_alloc;
    /* GPUIMG_TEST_FAIL_GPU=N: the CUDA backend on GPU N fails every chain
     * after its first (GI_ERR_DEVICE), as a GPU lost mid-batch would, so
     * that tests reach the batch's hand-over; -1 (unset): none */
    int fail_gpu;
    /* GPUIMG_TEST_SPLIT_SMALL=0|1: 1 runs every CPU operation on all its
     * context's threads however small the image (a small one takes fewer
     * by default), so that tests reach the bands' splits on small images */
    int split_small;
} gi__overrides;

/* The names, in the order gi__overrides_parse looks them up. */
extern const char *const gi__override_names[];
enum { GI__OVERRIDE_COUNT = 6 };

/* Parses the variables as `lookup` gives them (NULL: unset; "" counts as
 * unset too), each looked up once, into *out: the defaults for those
 * unset or bad. Returns GI_OK, or GI_ERR_INVALID_ARGUMENT with a message
 * naming the first bad variable, its value and the values it takes. */
gi_status gi__overrides_parse(const char *(*lookup)(const char *name, void *user), void *user,
                              gi__overrides *out);

/* The process's overrides, parsed from its environment at the first call. */
const gi__overrides *gi__process_overrides(void);

#endif
