/* GI_SHUFFLE: a lane shuffle of GCC/clang vector extensions, for the code
 * that writes its vectors by hand (the CPU backend, the JPEG writer). */
#ifndef GI_VECTOR_SHUFFLE_H
#define GI_VECTOR_SHUFFLE_H

/* A lane shuffle with constant indices into the concatenation of a and b
 * (pass a twice for one vector). mask is an integer vector type with a's
 * lane count and lane size, which GCC's __builtin_shuffle wants; clang
 * only has __builtin_shufflevector. */
#ifdef __clang__
#define GI_SHUFFLE(a, b, mask, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define GI_SHUFFLE(a, b, mask, ...) __builtin_shuffle(a, b, (mask){__VA_ARGS__})
#endif

#endif
