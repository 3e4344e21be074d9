/* stb is third-party code: its warnings are not ours to fix. Every file
 * that compiles stb's implementation (lib/codec/stb_impl.c, and the tests
 * and benchmarks that call stb's static functions) wraps its includes:
 *
 *   GI_STB_WARNINGS_OFF
 *   #include <stb_image.h>
 *   GI_STB_WARNINGS_ON
 *
 * With STB_IMAGE_STATIC, GCC reports the static functions that an
 * STBI_ONLY_ configuration declares but leaves undefined at the end of the
 * file, after the pop: such a file also ignores -Wunused-function. */
#ifndef GI_STB_WARNINGS_H
#define GI_STB_WARNINGS_H

#define GI_STB_WARNINGS_OFF                                                                    \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wsign-compare\"")      \
        _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")                              \
            _Pragma("GCC diagnostic ignored \"-Wunused-function\"")                           \
                _Pragma("GCC diagnostic ignored \"-Wimplicit-fallthrough\"")                  \
                    _Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")        \
                        _Pragma("GCC diagnostic ignored \"-Wtype-limits\"")                   \
                            _Pragma("GCC diagnostic ignored \"-Wunused-but-set-variable\"")

#define GI_STB_WARNINGS_ON _Pragma("GCC diagnostic pop")

#endif
