/* gpuimg.h - libgpuimg, image filters on the GPU with a bit-identical CPU twin
 *
 * This header is the manual. Everything a caller needs is here.
 *
 * PIXELS
 *   An image is 8 or 16 bits per channel (`depth`), channels interleaved,
 *   rows top to bottom:
 *       channels 1 = gray, 2 = gray+alpha, 3 = RGB, 4 = RGBA
 *       8 bits:  pixel (x, y), channel c is the uint8_t at
 *                data[y * stride + x * channels + c]
 *       16 bits: the uint16_t, in the machine's byte order, at
 *                ((uint16_t *)(data + y * stride))[x * channels + c]
 *   `stride` is the distance in bytes between the starts of two rows; it is
 *   at least width * channels * (depth / 8), and for 16 bits even. Width and
 *   height are at least 1. Operations keep the depth: a 16-bit source gives
 *   a 16-bit result; only gi_convert_depth changes it.
 *
 * OWNERSHIP
 *   gi_image_alloc() and gi_load_*() give you an image that owns its pixels;
 *   release it with gi_image_free(). You may also describe your own buffer
 *   in a gi_image (owns_data = 0); gi_image_free() then leaves the buffer alone.
 *   What else the library hands you it also takes back: metadata with
 *   gi_metadata_free(), contexts with gi_context_destroy(), and every other
 *   buffer (encoded bytes, a batch item's reason) with gi_free(), not
 *   free(): the library's allocator need not be the caller's.
 *   Operations never allocate the destination for you: gi_*_size() tell what
 *   size to allocate. Source and destination must not overlap.
 *
 * ERRORS
 *   Every function that can fail returns a gi_status. GI_OK is 0. On failure
 *   gi_last_error() returns a sentence that names the reason (and the file,
 *   where there is one), in the style of stbi_failure_reason(). The message
 *   is per thread and stays valid until the next failing call on that thread.
 *   The library never prints and never exits.
 *
 * THREADS
 *   A gi_context is used by one thread at a time. Make one per thread for
 *   concurrent work. Everything else is thread-safe.
 *
 * DETERMINISM
 *   8-bit results are exact integers defined below, identical on every
 *   backend (CPU with any thread count, CUDA on any GPU), so golden-image
 *   tests can compare bytes.
 */
#ifndef GPUIMG_H
#define GPUIMG_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GI_VERSION_STRING "0.1.0"

/* What libgpuimg exports: the functions this header declares, and nothing
 * else (the library is compiled with hidden visibility). */
#if defined(__GNUC__) || defined(__clang__)
#define GI_API __attribute__((visibility("default")))
#else
#define GI_API
#endif

/* ---------------------------------------------------------------- status */

typedef enum gi_status {
    GI_OK = 0,
    GI_ERR_INVALID_ARGUMENT, /* a parameter is out of its documented range */
    GI_ERR_IO,               /* reading or writing a file or stream failed */
    GI_ERR_DECODE,           /* the input is not a PNG/JPEG/PNM image that can be decoded */
    GI_ERR_ENCODE,           /* the encoder failed */
    GI_ERR_NO_MEMORY,        /* host allocation failed */
    GI_ERR_TOO_LARGE,        /* size limits or size arithmetic overflow */
    GI_ERR_UNSUPPORTED,      /* a format or feature this build lacks */
    GI_ERR_NO_DEVICE,        /* the CUDA backend was asked for but is absent */
    GI_ERR_DEVICE            /* a CUDA call failed; the detail names the error */
} gi_status;

/* A short fixed phrase for the status ("input/output error", ...). */
GI_API const char *gi_strerror(gi_status status);
/* The detail of the last failure on this thread ("" when none). */
GI_API const char *gi_last_error(void);

/* NULL POINTERS
 *   A pointer argument must point to what its type says, and so must a
 *   pointer member that the call reads (a job's steps), unless this header
 *   says NULL is fine there: limits, options or params NULL for their
 *   defaults, a name used in messages only, an optional output (gi_cuda_device_count's why,
 *   gi_stream_run's written), a buffer or an array whose size or count is
 *   0, and the releases (gi_free, gi_image_free, gi_metadata_free,
 *   gi_resize_axis_free, gi_context_destroy, gi_reader_close,
 *   gi_output_close), which do nothing with NULL, as free() does.
 *   Any other NULL is refused, never followed: a function that returns a
 *   gi_status returns GI_ERR_INVALID_ARGUMENT and gi_last_error() names
 *   the function and the argument as this header does ("gi_blur: p is
 *   NULL", "gi_batch_run: opts->job.steps is NULL"); a function without
 *   a status writes nothing and returns its answer for no input: 0, -1
 *   from the parsers, NULL, "", GI_FORMAT_AUTO, "none" from
 *   gi_context_backend. NULL metadata is empty metadata:
 *   gi_metadata_empty(NULL) is 1, gi_metadata_unwritable(NULL, ...) 0. */
/* A file name as every message prints it (the library's and gpuimg's):
 * the name itself when all of it prints as text; else, so that a newline
 * or a terminal escape in it cannot split or forge a line, quoted as GNU
 * ls --quoting-style=shell-escape does: 'a'$'\n''b.png', the bytes that
 * are not printable as $'\ooo' (or \n, \t, ...), a shell can paste it
 * back; an empty name as ''. The result is name itself (NULL for NULL) or
 * one of a few buffers of the calling thread, used in turn, valid until
 * the fourth call after it. */
GI_API const char *gi_quote_name(const char *name);

/* Releases a buffer the library returned for the caller to keep (gi_encode,
 * gi_metadata_embed and gi_job_run_memory's bytes, gi_batch_item.reason).
 * NULL is fine. */
GI_API void gi_free(void *buffer);

/* The library's environment variables, read once per process at the
 * first call that needs them: GPUIMG_CPU_ISA (generic, base, avx2,
 * avxvnni, avx512: the widest CPU instruction set used), GPUIMG_JPEG_ARITHMETIC
 * and GPUIMG_JPEG_ENTROPY (cpu, gpu: where a JPEG's decoding runs when its
 * steps run on CUDA, for measuring), GPUIMG_TEST_FAIL_DEVICE_ALLOC (0, 1),
 * GPUIMG_TEST_FAIL_GPU (an index: that GPU fails every chain after its
 * first, with GI_ERR_DEVICE, so that tests reach a batch's lost GPU),
 * GPUIMG_TEST_SPLIT_SMALL (0, 1: 1 runs a CPU operation on all the
 * context's threads however small its image, so that tests reach the
 * splits).
 * GI_OK, or GI_ERR_INVALID_ARGUMENT naming the first variable whose value
 * is none of those; gi_context_create fails the same way, and until then
 * such a variable has its default. */
GI_API gi_status gi_check_environment(void);

/* ---------------------------------------------------------------- images */

typedef struct gi_image {
    int width;
    int height;
    int channels;   /* 1..4, see PIXELS */
    size_t stride;  /* bytes per row, >= width * channels */
    uint8_t *data;
    int owns_data;  /* 1: gi_image_free() frees data */
    int depth;      /* bits per sample, 8 or 16; 0 is read as 8, so that an
                     * image described without it is 8-bit */
} gi_image;

/* Allocates an 8-bit width x height x channels image with stride = width *
 * channels. Fails with GI_ERR_TOO_LARGE when the byte count overflows size_t. */
GI_API gi_status gi_image_alloc(gi_image *img, int width, int height, int channels);
/* The same at `depth` bits per sample (8 or 16; else GI_ERR_INVALID_ARGUMENT),
 * with stride = width * channels * depth / 8. */
GI_API gi_status gi_image_alloc_depth(gi_image *img, int width, int height, int channels,
                                      int depth);
/* Bytes per sample of img: 1, or 2 at 16 bits. */
GI_API int gi_image_sample_bytes(const gi_image *img);
/* Frees owned pixels and zeroes the struct. Safe on a zeroed struct and
 * on NULL. */
GI_API void gi_image_free(gi_image *img);
/* Copies src into dst at dst's depth: dst is allocated by the caller with
 * src's width, height and channels, at 8 or 16 bits (else
 * GI_ERR_INVALID_ARGUMENT). The one rule for a change of depth:
 *     8 -> 16:  v * 257                  (exact: 255 -> 65535)
 *     16 -> 8:  (v + 128) / 257          (integer division)
 * the latter being v * 255 / 65535 correctly rounded: v * 255 / 65535 is
 * v / 257, and v / 257 is never a half (257 is odd), so no ties exist.
 * So 0xFF00 -> 254, and 8 -> 16 -> 8 gives every byte back. The same
 * depth copies. */
GI_API gi_status gi_convert_depth(const gi_image *src, gi_image *dst);

/* ---------------------------------------------------------------- files */

/* DEPTHS
 *   PNG: read at 8 or 16 bits as stored (a 16-bit PNG gives a 16-bit
 *   image, stb_image's 16-bit pixels: samples as stored, sBIT ignored as
 *   the PNG spec allows, tRNS compared at 16 bits); bit depths 1, 2 and 4
 *   and palettes give 8 bits. Written at the image's depth.
 *   JPEG: 8 bits only; a 16-bit image is refused (GI_ERR_UNSUPPORTED):
 *   convert it first (gi_convert_depth, or gi_save_options.depth = 8).
 *   Netpbm: see below. gi_save_options.depth writes another depth. */

/* PNG
 *   Read: stb_image's pixels, on the calling thread: gpuimg's own fast
 *   decoder gives them for the common file (8 bits, not interlaced) in
 *   builds with libdeflate, stb_image itself decodes the rest. Unlike
 *   stb, every way checks the file's checksums, as libpng does: a critical
 *   chunk (IHDR, PLTE, IDAT, IEND) that fails its CRC-32, or image data
 *   that fails the zlib stream's Adler-32 (or ends before it), is refused
 *   with GI_ERR_DECODE ("corrupt PNG: chunk IDAT at byte 33 fails its
 *   CRC", "corrupt PNG: the image data fails its zlib checksum") rather
 *   than decoded to wrong pixels; an ancillary chunk that fails its CRC is
 *   dropped, as libpng drops it (a tRNS then adds no alpha; for metadata
 *   see METADATA). */

/* JPEG
 *   Read: stb_image's pixels, on the calling thread: gpuimg's own exact
 *   decoder gives them for the files it takes (8-bit Huffman baseline and
 *   progressive, docs/jpeg-decoder.md), stb_image itself decodes or
 *   refuses the rest. Its pixels are the same on every machine, so golden
 *   images need no GPU.
 *   Written: stb_image_write's bytes, the same on every machine, made by
 *   gpuimg's own writer, several times faster than stb's, which the tests
 *   hold it to byte for byte. */

/* NETPBM (PNM and PAM)
 *   Read: P1/P4 bitmaps (1 black -> 0, 0 white -> 255), P2/P5 graymaps,
 *   P3/P6 pixmaps and P7 PAM of DEPTH 1..4 (TUPLTYPE optional; when
 *   present, GRAYSCALE, GRAYSCALE_ALPHA, RGB or RGB_ALPHA, or
 *   BLACKANDWHITE(_ALPHA), and it must agree with DEPTH). Header comments
 *   ('#' to the end of the line) are skipped. maxval 1..65535; samples
 *   over 255 are 16-bit big-endian. maxval 1..255 gives an 8-bit image,
 *   256..65535 a 16-bit one (top = 255 or 65535), every sample scaled to
 *   0..top rounding to nearest, halves up, as netpbm's pamdepth does:
 *       out = (v * top + maxval / 2) / maxval     (integer division)
 *   so maxval 255 and 65535 are read unchanged, maxval 1 gives 0 and 255,
 *   and maxval 1000 gives 0..65535. A sample over maxval fails with
 *   GI_ERR_DECODE. Bytes after the first
 *   image are ignored here; gi_reader_next reads them as the next image.
 *   Written: GI_FORMAT_PNM writes P5 for 1 and 2 channels and P6 for 3 and
 *   4, dropping alpha as ImageMagick and pngtopnm do (PGM and PPM have
 *   none); GI_FORMAT_PAM writes P7 with every channel and its TUPLTYPE.
 *   Both use maxval 255 for an 8-bit image, 65535 (big-endian samples)
 *   for a 16-bit one. */

/* TIFF (builds with libtiff; without it, GI_ERR_UNSUPPORTED "this build
 * has no TIFF support")
 *   Read: the first page (a batch item's warning says when there are
 *   more, and gpuimg prints it; gi_metadata's pages counts them, and
 *   Python's load warns), its
 *   Orientation tag into the metadata (the pixels stay as stored), 8 or
 *   16 bits a sample as stored (16-bit samples in host byte order), gray
 *   (MinIsBlack, or MinIsWhite turned into it: v -> max - v), gray+alpha,
 *   RGB or RGBA; uncompressed, LZW, deflate (Adobe's and the old code)
 *   or PackBits, with or without a predictor; strips or tiles; either
 *   byte order; contiguous or separate planes. The one extra sample is
 *   alpha: unassociated, or of unspecified meaning, read as it is;
 *   associated (premultiplied) colour is divided by alpha, correctly
 *   rounded, halves up, with max = 255 or 65535:
 *       c = a == 0 ? 0 : min(max, (c * max + a / 2) / a)
 *   Palette (with or without its colour map), bilevel (1-bit),
 *   floating-point or signed samples, CMYK, YCbCr, JPEG and other
 *   compressions, and more than one extra sample fail with
 *   GI_ERR_UNSUPPORTED naming the property; a damaged strip or tile
 *   fails with libtiff's reason for it.
 *   Written: 8 or 16 bits as the image is, gray, gray+alpha, RGB or RGBA
 *   (alpha an unassociated extra sample), in strips of about 256 KiB
 *   (BigTIFF past 3 GiB of samples): deflate with the horizontal
 *   predictor, each strip one zlib stream (libdeflate's level 1, on the
 *   encode's threads, where the build has libdeflate; else libtiff's
 *   zlib), or uncompressed (gi_save_options.tiff_compression);
 *   the ICC profile and XMP packet of the metadata in their tags, its
 *   orientation in the Orientation tag (2..8; none for 1) (the rest of
 *   the Exif is left out: gi_metadata_unwritable says so). */
typedef enum gi_format {
    GI_FORMAT_AUTO = 0, /* from the file name's extension */
    GI_FORMAT_PNG,
    GI_FORMAT_JPEG,
    GI_FORMAT_PNM,      /* P5 or P6 by channel count (.pnm .pgm .ppm) */
    GI_FORMAT_PAM,      /* P7 (.pam) */
    GI_FORMAT_TIFF      /* .tif .tiff */
} gi_format;

/* The codec that took the calling thread's last image decode or encode
 * (gi_load_*, gi_encode, gi_save_file), whether it succeeded or not: "stb"
 * (stb, or gpuimg's JPEG writer, which makes stb_image_write's very
 * bytes), "gpuimg-jpeg" (gpuimg's exact JPEG decoder, stb_image's very
 * pixels: docs/jpeg-decoder.md), "gpuimg-jpeg-cuda" (a job's JPEG output
 * made by the exact writer on the GPU), "libdeflate" (the fast PNG
 * decoder of builds with libdeflate, which decodes 8-bit, non-interlaced
 * PNGs to stb's very pixels), "pnm" or "libtiff"; "" before the first. */
GI_API const char *gi_last_codec(void);

/* Limits checked before any large allocation, and a decode's threads. */
typedef struct gi_load_limits {
    uint64_t max_input_bytes; /* default 1 GiB */
    uint64_t max_pixels;      /* width * height of an image read, and of a job's
                                 result and each image between its steps;
                                 default 16384 * 16384 */
    /* Threads one JPEG or TIFF decode may use (JPEG: restart intervals of
     * the entropy decoding, a progressive file's scans, bands of rows of
     * the IDCT and colour; TIFF: its strips or tiles): 0 (the default) or
     * 1 decodes on the calling thread
     * alone. The pixels do not depend on it (nor, for a TIFF, the message
     * for a damaged file). gi_batch_run sets it for a batch of one image, whose decode
     * would otherwise leave the other cores idle. */
    int decode_threads;
    /* JPEG shrink-on-load, for thumbnails: 0 (the default) decodes at full
     * size. N > 0: a gray or YCbCr JPEG that gpuimg's exact decoder takes
     * (its chroma sampled at 1, 1/2 or 1/4: every common camera's and
     * encoder's) is decoded at 1/2, 1/4 or 1/8 of its size inside the IDCT, the
     * largest of those that leaves both sides at least N pixels (a reduced
     * IDCT of each block's top-left coefficients, as libjpeg's scaled
     * decoding; lib/codec/jpeg_shrink.h defines its integers). Other
     * files decode at full size. A job whose JPEG decodes on the GPU
     * shrinks it there, with the same integers: the same bytes. A
     * progressive file's AC scans of a component whose shrunk blocks are
     * one sample each (its DC alone: full-resolution components at 1/8)
     * are not decoded, as nothing reads them: their data is skipped to
     * the next marker, unchecked, so damage there does not make the file
     * fail. */
    int shrink_to;
} gi_load_limits;
GI_API void gi_load_limits_default(gi_load_limits *limits);

/* The metadata that travels with an image file; see METADATA below. */
typedef struct gi_metadata gi_metadata;

/* Decodes PNG, JPEG, Netpbm or TIFF, told apart by their first bytes (limits
 * NULL = defaults). The image keeps the channel count stored in the file
 * (palette PNGs become RGB or RGBA, an index past the palette's end
 * opaque black; bitmaps gray) and its depth (16-bit PNGs and PNMs of
 * maxval over 255 give 16-bit images: see DEPTHS). Rows are never flipped. `name` is used in error messages
 * only and may be NULL. A PNG that fails its checksums is refused (see
 * PNG). */
GI_API gi_status gi_load_memory(gi_image *img, const void *bytes, size_t size,
                         const char *name, const gi_load_limits *limits);
/* Reads a whole file ("-" is standard input) and decodes it (limits NULL =
 * defaults). */
GI_API gi_status gi_load_file(gi_image *img, const char *path,
                       const gi_load_limits *limits);
/* The same, and reads the file's metadata into *meta (see METADATA: it
 * never makes the load fail; on failure *meta is empty). meta NULL reads
 * none, as gi_load_file. */
GI_API gi_status gi_load_file_with_metadata(gi_image *img, const char *path,
                                     const gi_load_limits *limits, gi_metadata *meta);

/* Images read one after another from a file or standard input ("-"):
 * a stream of concatenated PNM/PAM images, such as ffmpeg's
 * `-f image2pipe -vcodec ppm` writes (any mix of P1..P7, blanks between
 * them allowed), or one PNG or JPEG (read to the end). The limits apply
 * to each image, so a stream may be endless. The reader holds one
 * binary image's bytes at a time; plain (ASCII) P1-P3 images have no
 * length in their header, so the rest of a stream is read (up to
 * max_input_bytes) when one of them comes. Not thread-safe: one reader,
 * one thread. */
typedef struct gi_reader gi_reader;
GI_API gi_status gi_reader_open(gi_reader **reader, const char *path, const gi_load_limits *limits);
/* Decodes the next image into *img (as gi_load_memory). At the end of
 * the stream it returns GI_OK with img->data NULL. Failures name the
 * stream and, for a Netpbm image or any image after the first, the
 * image's number, counted from 1 ("standard input: image 3: truncated:
 * ..."); a stream that ends inside an image fails with GI_ERR_DECODE, and
 * one with no image at all with GI_ERR_DECODE ("empty"). After a failure
 * the reader only fails. */
GI_API gi_status gi_reader_next(gi_reader *reader, gi_image *img);
/* The same, and the image's metadata into *meta (see METADATA; empty for
 * Netpbm images, which have none; never a reason to fail); meta NULL reads
 * none, as gi_reader_next. */
GI_API gi_status gi_reader_next_with_metadata(gi_reader *reader, gi_image *img, gi_metadata *meta);
/* The number of images gi_reader_next has returned. */
GI_API size_t gi_reader_count(const gi_reader *reader);
/* Closes the file (not standard input) and frees the reader; NULL is fine. */
GI_API void gi_reader_close(gi_reader *reader);

/* PNG row filters. DEFAULT is AUTO, stb's per-row choice (the filter
 * whose bytes have the smallest sum of magnitudes): on photos as small as
 * the best single filter, which differs from photo to photo, and on line
 * art and flat synthetic images up to 20% smaller than UP. */
typedef enum gi_png_filter {
    GI_PNG_FILTER_DEFAULT = 0,
    GI_PNG_FILTER_AUTO, /* a filter for each row, as stb picks it */
    GI_PNG_FILTER_NONE,
    GI_PNG_FILTER_SUB,
    GI_PNG_FILTER_UP,
    GI_PNG_FILTER_AVERAGE,
    GI_PNG_FILTER_PAETH
} gi_png_filter;

/* How a TIFF's strips are stored (gi_save_options.tiff_compression). */
typedef enum gi_tiff_compression {
    GI_TIFF_DEFLATE = 0, /* the default: deflate with the horizontal predictor */
    GI_TIFF_UNCOMPRESSED /* the samples as they are: larger, the fastest to write and read */
} gi_tiff_compression;

/* Encoder settings, for one call (a zeroed struct plus a format is valid):
 *   jpeg_quality  1..100 (0: 90). JPEG output drops alpha and always has
 *                 three components (stb's writer: gray is stored as equal
 *                 R, G and B).
 *   png_level     deflate effort 1 (fast) .. 9 (small); 12 is libdeflate's
 *                 maximum. 0: 3 with libdeflate, 8 with stb's own deflate.
 *   png_filter    see gi_png_filter.
 *   tiff_compression  see gi_tiff_compression.
 *   metadata      NULL (the default): none; else written into the output as
 *                 gi_metadata_embed does (see METADATA). The caller keeps
 *                 ownership.
 *   depth         0 (the default): the image's own; 8 or 16: written at that
 *                 depth, converted as gi_convert_depth does. A 16-bit image
 *                 to JPEG needs depth 8 (else GI_ERR_UNSUPPORTED); depth 16
 *                 to JPEG is GI_ERR_UNSUPPORTED. */

typedef struct gi_save_options {
    gi_format format;
    int jpeg_quality;
    int png_level;
    gi_png_filter png_filter;
    const gi_metadata *metadata;
    /* Threads one JPEG, PNG or TIFF encode may use (JPEG: pieces of MCU
     * rows; PNG, with libdeflate: the deflate in pieces of 1 MiB of
     * filtered rows; TIFF, with libdeflate: its strips): 0 (the default)
     * or 1 encodes on the calling thread alone.
     * The bytes do not depend on it. gi_batch_run sets it for a batch of
     * one image. */
    int encode_threads;
    int depth; /* 0 keep, 8 or 16 (see above) */
    gi_tiff_compression tiff_compression;
} gi_save_options;
GI_API void gi_save_options_default(gi_save_options *opts);

/* 1 when PNGs are compressed with libdeflate (an optional dependency). */
GI_API int gi_png_deflate_is_libdeflate(void);

/* Picks the format from a path's extension (.png .jpg .jpeg, .pnm .pgm
 * .ppm for GI_FORMAT_PNM, .pam, .tif .tiff, any case).
 * Returns GI_FORMAT_AUTO when the extension is none of those. */
GI_API gi_format gi_format_from_path(const char *path);

/* Encodes into a new buffer that the caller releases with gi_free(). */
GI_API gi_status gi_encode(const gi_image *img, const gi_save_options *opts,
                    uint8_t **bytes, size_t *size);
/* Encodes and writes atomically (opts NULL = defaults): the bytes go to a temporary file in the
 * destination's directory, which is renamed over `path` only after every
 * write, fflush and fclose succeeded. On failure no file is left behind and
 * an existing file at `path` is untouched. "-" writes standard output. */
GI_API gi_status gi_save_file(const gi_image *img, const char *path,
                       const gi_save_options *opts);
/* Several images into one output, written atomically like gi_save_file:
 * a stream of frames (PNM/PAM ones are what ffmpeg's image2pipe reads),
 * each encoded by gi_output_image as gi_save_file would encode it, one
 * after another. Nothing lands at `path` until gi_output_close(out, 1)
 * renames it into place; gi_output_close(out, 0), or any failure,
 * removes it. "-" is standard output (written as it goes, never closed);
 * devices and FIFOs are written directly. A failed gi_output_image leaves
 * `out` open for gi_output_close(out, 0). */
typedef struct gi_output gi_output;
GI_API gi_status gi_output_open(gi_output **out, const char *path);
/* opts NULL = defaults (the format from the path's extension). */
GI_API gi_status gi_output_image(gi_output *out, const gi_image *img, const gi_save_options *opts);
/* keep 1: flushes and renames into place; 0: removes the temporary file.
 * Frees `out` either way (NULL is fine). */
GI_API gi_status gi_output_close(gi_output *out, int keep);
/* The same atomic write for bytes that are already encoded (or text). */
GI_API gi_status gi_write_file_atomic(const char *path, const void *bytes,
                               size_t size);
/* Removes the temporary files of writes in progress in this process.
 * Async-signal-safe: for a SIGINT/SIGTERM handler that is about to end the
 * process, so an interrupted write leaves nothing behind. */
GI_API void gi_remove_partial_outputs(void);

/* ---------------------------------------------------------------- borders
 *
 * For an index i outside [0, n) each mode reads:
 *   zero       00|abcd|00   the border value (gi_border.value)
 *   replicate  aa|abcd|dd   clamp(i, 0, n-1)
 *   reflect    ba|abcd|dc   j = i mod 2n; j >= n ? 2n-1-j : j
 *   mirror     cb|abcd|cb   n == 1 ? 0 : (j = i mod (2n-2); j >= n ? 2n-2-j : j)
 *   wrap       cd|abcd|ab   i mod n
 * "mod" is the non-negative remainder. The formulas hold for any i, so a
 * radius larger than the image is fine. mirror is the default.
 */
typedef enum gi_border_mode {
    GI_BORDER_ZERO = 0,
    GI_BORDER_REPLICATE,
    GI_BORDER_REFLECT,
    GI_BORDER_MIRROR,
    GI_BORDER_WRAP
} gi_border_mode;

typedef struct gi_border {
    gi_border_mode mode;
    uint8_t value; /* every channel of an outside pixel in zero mode */
} gi_border;

/* Maps i into [0, n); returns -1 for an outside index in zero mode. */
GI_API long gi_border_index(long i, long n, gi_border_mode mode);
/* Accepts the names and aliases: zero constant | replicate clamp nearest
 * edge | reflect symmetric | mirror reflect101 | wrap periodic tile.
 * Returns 0 on success, -1 for an unknown name. */
GI_API int gi_border_parse(const char *name, gi_border_mode *mode);
GI_API const char *gi_border_name(gi_border_mode mode);
GI_API const char *gi_border_pattern(gi_border_mode mode); /* "cb|abcd|cb" */

/* ---------------------------------------------------------------- context */

typedef enum gi_device {
    GI_DEVICE_AUTO = 0, /* per operation, whichever finishes first (below) */
    GI_DEVICE_CPU,
    GI_DEVICE_CUDA      /* fails with GI_ERR_NO_DEVICE when unavailable */
} gi_device;

typedef struct gi_context gi_context;

/* The CPU threads that a context, a batch's codec workers and a stream take
 * where their options leave 0: one for each core this process may run on
 * (its affinity mask, which taskset, numactl or a container's cpuset set),
 * and no more than its control groups' CPU quota allows, rounded up
 * (docker --cpus, a Kubernetes CPU limit); counted at the first call. */
GI_API int gi_cpu_threads_default(void);

typedef struct gi_context_options {
    gi_device device;
    /* The most threads an operation of the CPU backend runs on; 0 =
     * gi_cpu_threads_default(). A small image takes fewer: one for each
     * 256 KiB or so of its pixels (input and output), as waking a thread
     * that sleeps takes longer than such an image's whole operation. The
     * result never depends on the count. */
    int cpu_threads;
    /* The GPU its CUDA backend runs on: an index among the visible devices
     * (CUDA_VISIBLE_DEVICES chooses and orders them), as gi_cuda_device_info
     * numbers them; 0 = the first. An index with no device fails
     * gi_context_create with GI_ERR_INVALID_ARGUMENT under CUDA (AUTO: the
     * CPU runs, and gi_context_fallback_reason says why). */
    int gpu;
} gi_context_options;
GI_API void gi_context_options_default(gi_context_options *opts);

/* opts NULL = defaults. */
GI_API gi_status gi_context_create(gi_context **ctx, const gi_context_options *opts);
/* NULL is fine. */
GI_API void gi_context_destroy(gi_context *ctx);
/* AUTO chooses for every operation the device that would finish it
 * first, from a cost model: the CPU's time for the operation (its measured
 * cost per pixel for the operation and channel count, over the context's
 * threads) against what is left of CUDA's start-up (a few hundred ms, paid
 * once per process), the copies to and from the GPU and the kernel. Heavy
 * work (a wide blur on a large image, a large convolution mask, a long run
 * of images announced with gi_context_plan_hint) goes to the GPU; a photo's
 * sobel on many cores stays on the CPU. CUDA is started, on a thread of its
 * own, only once a plan says it will be used, and an operation waits for it
 * only when the GPU would still finish first; while the plans say CPU,
 * nothing of CUDA is called (not even the device count). Both devices give
 * the same bytes, so the choice changes only the time.
 *
 * "cpu" or "cuda": the backend the context settles on. Under AUTO this
 * asks the plan of gi_context_plan_hint (waiting for CUDA when it says
 * CUDA); without a hint it starts CUDA when it is usable. */
GI_API const char *gi_context_backend(gi_context *ctx);
/* The device of the last operation and why, one line, e.g.
 *   "cpu: CPU 12.1 ms, CUDA 246.3 ms (start-up 230, copies 15.2, kernel 1.1)"
 * ("" before the first operation). */
GI_API const char *gi_context_last_choice(const gi_context *ctx);
/* How long CUDA's start-up took in this context (driver, device, context,
 * kernel probe), in ms of wall clock; 0 when CUDA was not started. */
GI_API double gi_context_cuda_startup_ms(const gi_context *ctx);
/* Why AUTO chose the CPU, or "" when it did not (or has not decided). */
GI_API const char *gi_context_fallback_reason(const gi_context *ctx);
/* "cpu" or "cuda": the backend that ran the last operation ("" before any). */
GI_API const char *gi_context_last_backend(const gi_context *ctx);
/* Why the last operation ran on the CPU although the context uses CUDA
 * (AUTO reruns an operation on the CPU when the GPU is out of memory), or
 * "" when it ran on the context's backend. */
GI_API const char *gi_context_last_fallback(const gi_context *ctx);

/* Where the last operation on a context spent its time, in milliseconds of
 * wall clock. startup_ms is non-zero only for the operation that started
 * CUDA (driver, context, kernel probe). On CUDA, upload_ms covers the copy
 * into pinned memory and the host-to-device transfer, kernel_ms the
 * kernels, download_ms the device-to-host transfer and the copy out of
 * pinned memory (the three device parts timed with CUDA events). On the
 * CPU, the whole operation is kernel_ms and the copies are 0. A result
 * that a batch or a job has encoded as a JPEG where it ran is inside
 * kernel_ms on the CPU and left out of download_ms on CUDA: the batch
 * counts it as its encode stage (gi_stage). */
typedef struct gi_op_times {
    double startup_ms, upload_ms, kernel_ms, download_ms;
} gi_op_times;
GI_API void gi_context_last_times(const gi_context *ctx, gi_op_times *times);
/* Was the CUDA backend compiled into this library? */
GI_API int gi_cuda_compiled(void);

/* GPUs the CUDA backend can use. Returns the count; when it is 0, *why (if
 * not NULL) says why (not compiled in, no driver, no device, ...). */
GI_API int gi_cuda_device_count(const char **why);

typedef struct gi_device_info {
    char name[256];
    int cc_major, cc_minor;     /* compute capability */
    uint64_t total_memory;      /* bytes */
    int multiprocessors;
    double copy_gbytes_per_s;   /* device-to-device copy, read + write bytes;
                                   0 unless measured */
} gi_device_info;
/* Fills `info` for GPU `index`; measure_bandwidth times a 256 MiB copy. */
GI_API gi_status gi_cuda_device_info(int index, int measure_bandwidth,
                              gi_device_info *info);

/* A choice of GPUs: indices among the visible devices, each once, in the
 * order given; count 0 means every visible GPU. */
#define GI_MAX_GPUS 64
typedef struct gi_gpus {
    int count;
    int index[GI_MAX_GPUS];
} gi_gpus;
/* "all", or a comma-separated list of indices and ranges: "0", "1,3",
 * "0-3". GI_ERR_INVALID_ARGUMENT with a message saying what is wrong
 * (*out is then left empty, meaning all). */
GI_API gi_status gi_gpus_parse(const char *text, gi_gpus *out);
/* The GPUs `chosen` names, checked against gi_cuda_device_count: every
 * visible one for count 0. GI_ERR_NO_DEVICE when there is none,
 * GI_ERR_INVALID_ARGUMENT naming an index with no device. */
GI_API gi_status gi_gpus_resolve(const gi_gpus *chosen, gi_gpus *out);

/* ---------------------------------------------------------------- blur
 *
 * Separable: a horizontal pass, then a vertical pass, with integer weights
 * w[-R..R] that sum to exactly 65536 (gi_blur_weights).
 *   gaussian: w[k] ~ 65536 * exp(-k^2 / (2 sigma^2)) / sum; symmetric.
 *   box:      65536 / (2R+1) each, the remainder handed out one unit at a
 *             time from the centre outwards, keeping the weights symmetric.
 *   Gaussian weights are rounded by largest remainder (in symmetric pairs),
 *   so each is the floor or the ceiling of its exact value.
 * Per channel, with u the input sample and B(.) the border rule:
 *   horizontal  h(x,y) = (sum_k w[k] * u(B(x+k), y) + 128) >> 8
 *   vertical    v(x,y) =  sum_k w[k] * h(x, B(y+k))
 *   plain       out    = (v + 2^23) >> 24                  (u = the sample)
 * Images with alpha (2 and 4 channels) are blurred premultiplied so colour
 * does not darken next to transparency: colour channels use u = c * a,
 * alpha uses u = a, and
 *   colour      out    = va == 0 ? 0 : min(255, (vc + va / 2) / va)
 * where vc, va are the vertical sums of that colour and of alpha.
 * Each result is within 1 of the same computation in exact arithmetic.
 *
 * At 16 bits (u <= 65535; in zero mode an outside sample is value * 257):
 *   plain       h, v and out as above (h < 2^24 and v < 2^40: 64-bit sums)
 *   with alpha  colour  h = (sum_k w[k] * c a + 2^15) >> 16   (< 2^32)
 *               alpha   h =  sum_k w[k] * a                   (< 2^32, exact)
 *               vc, va  = sum_k w[k] * h                      (< 2^48)
 *               colour  out = va == 0 ? 0
 *                             : min(65535, (vc * 2^16 + va / 2) / va)
 *               alpha   out = (va + 2^31) >> 32
 * Plain samples are within 1/2 + 1/512 of the exact blur (the correctly
 * rounded value but where it lies within 1/512 of a half), alpha is the
 * correctly rounded value (halves up), and a colour is within 1/2 +
 * 1/(2 A) of the exact weighted mean, A the exact blurred alpha in
 * samples: within 1 wherever A >= 1.
 */
typedef enum gi_blur_kernel { GI_BLUR_GAUSSIAN = 0, GI_BLUR_BOX } gi_blur_kernel;

#define GI_BLUR_MAX_RADIUS 1024
#define GI_BLUR_WEIGHT_SUM 65536

typedef struct gi_blur_params {
    gi_blur_kernel kernel;
    double sigma;  /* > 0, default 1.0 (gaussian only) */
    int radius;    /* 0..GI_BLUR_MAX_RADIUS, or -1 = ceil(3 * sigma) */
    gi_border border;
} gi_blur_params;
GI_API void gi_blur_params_default(gi_blur_params *p);
/* The radius actually used (resolves -1). */
GI_API int gi_blur_radius(const gi_blur_params *p);
/* Fills weights[0 .. 2R] (index k + R holds w[k]). */
GI_API gi_status gi_blur_weights(const gi_blur_params *p, int32_t *weights);
/* dst: same size and channels as src. */
GI_API gi_status gi_blur(gi_context *ctx, const gi_image *src, gi_image *dst,
                  const gi_blur_params *p);

/* ---------------------------------------------------------------- sobel
 *
 * gx = [-1 0 1; -2 0 2; -1 0 1] and gy = its transpose, applied as a
 * correlation with the border rule. With m = sqrt(gx^2 + gy^2) in double:
 *   magnitude  out = min(255, floor(scale * m + 0.5))
 *   threshold  out = scale * m >= threshold ? 255 : 0
 * Colour channels are filtered one by one and alpha is copied through.
 * gray = 1 first converts to luma, Y = (77 R + 150 G + 29 B + 128) >> 8
 * (gray inputs are used as they are), and writes one channel.
 * At 16 bits the same in the 16-bit range (|gx|, |gy| < 2^18): magnitude
 * out = min(65535, floor(scale * m + 0.5)), threshold out = scale * m >=
 * threshold ? 65535 : 0 (threshold in 16-bit units), the same luma, and in
 * zero mode an outside sample is value * 257. Every output is the double
 * formula's, so the magnitude is correctly rounded (halves up).
 */
typedef struct gi_sobel_params {
    double scale;      /* finite, >= 0, default 1 */
    int use_threshold; /* 0: magnitude, 1: binary edge map */
    double threshold;
    int gray;
    gi_border border;
} gi_sobel_params;
GI_API void gi_sobel_params_default(gi_sobel_params *p);
/* dst: src's size, 1 channel with gray, else src's channels. */
GI_API void gi_sobel_size(const gi_image *src, const gi_sobel_params *p,
                   int *width, int *height, int *channels);
GI_API gi_status gi_sobel(gi_context *ctx, const gi_image *src, gi_image *dst,
                   const gi_sobel_params *p);

/* ---------------------------------------------------------------- convolve
 *
 * Correlation with any odd mask up to 31x31, applied unflipped and centred
 * (as OpenCV's filter2D): with rx = (mw-1)/2, ry = (mh-1)/2,
 *   out(x, y) = sum_{j,i} m[j][i] * in(B(x + i - rx), B(y + j - ry))
 * Every channel is filtered on its own, alpha included.
 * Fixed point: q = round(m * 2^S) for the largest S in 0..24 with
 * 255 * sum|q| <= 2^30, and out = clamp((sum q * v + 2^(S-1)) >> S, 0, 255)
 * (an arithmetic shift, so halves round up). gi_convolve_quantize exposes
 * q and S; a mask that does not fit even at S = 0 (255 * sum|round(m)| >
 * 2^30) is refused.
 * normalize divides m by its sum first (refused when the sum is 0).
 * At 16 bits: S is the largest in 0..30 with every |q| < 2^31 and
 * 65535 * sum|q| <= 2^52, the sum is exact (64-bit), out = clamp((sum q *
 * v + 2^(S-1)) >> S, 0, 65535), and in zero mode an outside sample is
 * value * 257. Every mask accepted at 8 bits is accepted at 16. The result
 * is within 1/2 + 65535 * sum|q - m 2^S| / 2^S of the clamped exact
 * correlation (the quantization error: at most taps * 65535 / 2^(S+1),
 * below 1/32 where S = 30, as for masks with values within +-2 and
 * sum|m| <= 64).
 */
#define GI_CONVOLVE_MAX_SIZE 31
typedef struct gi_convolve_params {
    int width, height;  /* odd, 1..GI_CONVOLVE_MAX_SIZE */
    const double *mask; /* height rows of width values, top row first */
    int normalize;
    gi_border border;
} gi_convolve_params;

typedef struct gi_convolve_weights {
    int width, height;
    int shift; /* S */
    int32_t q[GI_CONVOLVE_MAX_SIZE * GI_CONVOLVE_MAX_SIZE];
} gi_convolve_weights;

GI_API gi_status gi_convolve_quantize(const gi_convolve_params *p, gi_convolve_weights *out);
/* The same for images of `depth` bits (8: gi_convolve_quantize; 16: above). */
GI_API gi_status gi_convolve_quantize_depth(const gi_convolve_params *p, int depth,
                                            gi_convolve_weights *out);
/* dst: same size and channels as src. */
GI_API gi_status gi_convolve(gi_context *ctx, const gi_image *src, gi_image *dst,
                      const gi_convolve_params *p);

/* ---------------------------------------------------------------- transform
 *
 * Exact pixel permutations. Rotations are clockwise.
 *   transpose  out(x, y) = in(y, x)               out is h x w
 *   rotate90   out(x, y) = in(y, h-1-x)           out is h x w
 *   rotate180  out(x, y) = in(w-1-x, h-1-y)
 *   rotate270  out(x, y) = in(w-1-y, x)           out is h x w
 *   flip_h     out(x, y) = in(w-1-x, y)           mirror left-right
 *   flip_v     out(x, y) = in(x, h-1-y)           upside down
 * 16-bit images move the same way: a pixel's samples, unchanged.
 */
typedef enum gi_transform {
    GI_TRANSPOSE = 0,
    GI_ROTATE_90,
    GI_ROTATE_180,
    GI_ROTATE_270,
    GI_FLIP_H,
    GI_FLIP_V
} gi_transform;
GI_API void gi_transform_size(const gi_image *src, gi_transform t, int *width,
                       int *height);
GI_API gi_status gi_transform_image(gi_context *ctx, const gi_image *src,
                             gi_image *dst, gi_transform t);

/* ---------------------------------------------------------------- resize
 *
 * Resampling with the pixel-centre convention of libvips, Pillow and
 * OpenCV. Along an axis from n_in to n_out samples (s = n_out / n_in),
 * output sample x reads around the input position
 *     centre c = (x + 0.5) / s              (x_in = c - 0.5 in pixel indices)
 * with the filter k widened by f = max(1 / s, 1), so that a reduction
 * averages every input sample it covers instead of aliasing (as libvips's
 * reduce and Pillow do; an enlargement interpolates, f = 1):
 *     w_i = k((i + 0.5 - c) / f)   for the input indices i in [0, n_in)
 *                                   with |i + 0.5 - c| < support * f
 * Taps outside the image are left out and the rest renormalized (w_i /
 * sum w), as Pillow does, so the edges need no border rule.
 *   lanczos3  sinc(t) sinc(t / 3), |t| < 3   (the default, as libvips)
 *   lanczos2  sinc(t) sinc(t / 2), |t| < 2
 *   cubic     Catmull-Rom (Keys, a = -0.5), |t| < 2
 *   linear    1 - |t|, |t| < 1
 *   area      the overlap of input pixel [i, i + 1) with the output
 *             pixel's footprint [c - f/2, c + f/2]: a box average when
 *             reducing (OpenCV's INTER_AREA), linear when enlarging
 *   nearest   one tap, i = min(floor(c), n_in - 1), weight 1
 * with sinc(t) = sin(pi t) / (pi t). Quantization: per output position,
 * by largest remainder, with v_i = 2^14 * w_i / sum w (in float64)
 *     q_i = floor(v_i), then R = 2^14 - sum q_i units (0 <= R < the
 *     number of taps) one each to the R taps with the largest fractions
 *     v_i - floor(v_i); among equal fractions the tap nearest the centre
 *     (the least |i + 0.5 - c|, exactly), then the lower index i
 * so every q_i is v_i's floor or ceiling (within 1 of it, however many the
 * taps), the q_i sum to exactly GI_RESIZE_WEIGHT_SUM, and equal weights
 * mirrored about c stay equal unless an odd unit falls between the two
 * (gi_resize_axis_weights gives them). Separable, rows first: per
 * channel, with u the sample, x's taps qx and y's qy, gray and RGB are
 *   horizontal  h(x, y) = (sum_i qx_i * u(i, y) + 2^5) >> 6     (int32)
 *   vertical    v(x, y) =  sum_j qy_j * h(x, j)                  (int64)
 *   out         clamp((v + 2^21) >> 22, 0, 255)
 * Images with alpha (2 and 4 channels) are resampled premultiplied, so
 * colour does not darken next to transparency: colour channels use u =
 * c * a, alpha u = a, the sums are kept whole (h = sum_i qx_i * u(i, y),
 * an int32), and with vc and va the vertical sums of a colour and alpha
 *   alpha       out = clamp((va + 2^27) >> 28, 0, 255)
 *   colour      out = va <= 0 || vc <= 0 ? 0 : min(255, (vc + va / 2) / va)
 * ">>" is an arithmetic shift (a floor). The samples are resampled as
 * stored (gamma-encoded, as libvips, Pillow and OpenCV do by default).
 * Gray and RGB samples are within 0.5 + 1/64 of the same computation in
 * exact arithmetic, alpha and colour are its exact value rounded.
 * 16 BITS: the same weights and formulas with 65535 for 255 in the clamps,
 * and h an int64 everywhere (c * a times the weights passes 2^31):
 *   plain       out = clamp((v + 2^21) >> 22, 0, 65535)
 *   alpha       out = clamp((va + 2^27) >> 28, 0, 65535)
 *   colour      out = va <= 0 || vc <= 0 ? 0 : min(65535, (vc + va / 2) / va)
 * every sum an exact int64 (|v| < 2^61), so the same bounds hold: gray and
 * RGB within 0.5 + 1/64 of exact arithmetic, alpha correctly rounded
 * (halves up), colour the exact quotient rounded (within 0.5 + 1 / va).
 *
 * The output's size, for a source of w0 x h0:
 *   scale > 0          round(w0 * scale) x round(h0 * scale)
 *   width alone        width x round(h0 * width / w0)   (height alike)
 *   width and height   fill: exactly that; inside (the default): the
 *                      largest size of the source's aspect within the box;
 *                      cover: the smallest that covers it
 * rounding halves up, every side at least 1 and at most GI_RESIZE_MAX_SIDE.
 */
typedef enum gi_resize_filter {
    GI_RESIZE_LANCZOS3 = 0,
    GI_RESIZE_LANCZOS2,
    GI_RESIZE_CUBIC,
    GI_RESIZE_LINEAR,
    GI_RESIZE_AREA,
    GI_RESIZE_NEAREST
} gi_resize_filter;

typedef enum gi_resize_fit {
    GI_FIT_INSIDE = 0,
    GI_FIT_FILL,
    GI_FIT_COVER
} gi_resize_fit;

#define GI_RESIZE_WEIGHT_SUM 16384
#define GI_RESIZE_MAX_SIDE 65536

typedef struct gi_resize_params {
    int width, height;  /* 0..GI_RESIZE_MAX_SIDE; 0: from the aspect */
    double scale;       /* > 0: both sides scaled (width, height 0); else 0 */
    gi_resize_fit fit;  /* with both width and height */
    gi_resize_filter filter;
} gi_resize_params;
/* Zeroes: lanczos3, inside; set a size or a scale. */
GI_API void gi_resize_params_default(gi_resize_params *p);
/* The output size (see above); both 0 when p asks for none. */
GI_API void gi_resize_size(const gi_image *src, const gi_resize_params *p, int *width, int *height);
/* Accepts lanczos3 lanczos2 cubic linear area nearest; 0, or -1. */
GI_API int gi_resize_filter_parse(const char *name, gi_resize_filter *filter);

/* One axis's integer weights, from n_in to n_out samples: output x reads
 * the inputs first[x] .. first[x] + count[x] - 1 with the weights
 * q[x * taps + k] (k < count[x]; the rest 0), which sum to
 * GI_RESIZE_WEIGHT_SUM. n_in and n_out are 1..GI_RESIZE_MAX_SIDE, else
 * GI_ERR_INVALID_ARGUMENT (gi_resize computes the same weights for a
 * source side past that, of an image it holds). Release with
 * gi_resize_axis_free (NULL is fine). */
typedef struct gi_resize_axis {
    int n_in, n_out, taps;
    int32_t *first, *count, *q;
} gi_resize_axis;
GI_API gi_status gi_resize_axis_weights(int n_in, int n_out, gi_resize_filter filter,
                                 gi_resize_axis *axis);
GI_API void gi_resize_axis_free(gi_resize_axis *axis);
/* dst: gi_resize_size's size, src's channels. */
GI_API gi_status gi_resize(gi_context *ctx, const gi_image *src, gi_image *dst,
                    const gi_resize_params *p);

/* ---------------------------------------------------------------- crop
 *
 * out(x, y) = in(x0 + x, y0 + y): a rectangle of the source, its samples
 * unchanged (8 or 16 bits). width or height 0 reaches the source's right or bottom edge,
 * so a zeroed gi_crop_params is the whole image (what `gpuimg convert`
 * runs). With centre, x and y are ignored and the rectangle is centred:
 * x0 = (w0 - width) / 2 (integer division), y0 alike, and a rectangle
 * larger than the source is cut to it. Otherwise the rectangle must start
 * inside the source, and is cut at its right and bottom edges.
 */
typedef struct gi_crop_params {
    int x, y;           /* >= 0 */
    int width, height;  /* >= 0; 0: to the edge */
    int centre;
} gi_crop_params;
/* The rectangle taken from src (x0, y0 and its size). */
GI_API void gi_crop_rect(const gi_image *src, const gi_crop_params *p, int *x0, int *y0, int *width,
                  int *height);
GI_API gi_status gi_crop(gi_context *ctx, const gi_image *src, gi_image *dst, const gi_crop_params *p);

/* ---------------------------------------------------------------- metadata
 *
 * What travels with the pixels of a photo, read from and written into the
 * container's bytes, apart from decoding (stb reads pixels only):
 *   JPEG  APP1 "Exif\0\0", APP1 XMP ("http://ns.adobe.com/xap/1.0/"), APP2
 *         "ICC_PROFILE" in up to 255 numbered segments;
 *   PNG   eXIf, iCCP (zlib), iTXt or zTXt keyword "XML:com.adobe.xmp", sRGB,
 *         gAMA, cHRM;
 *   TIFF  the first page's ICC profile (tag 34675), XMP (700) and
 *         Orientation (274), which fills `orientation` as an Exif one does;
 *         for 2..8 `exif` is an IFD0 holding that tag alone, which carries
 *         it into a PNG or JPEG.
 * Parsing is of the container only, bounded and overflow-checked: an ICC
 * profile or XMP packet inflates to at most GI_METADATA_MAX_BYTES; the
 * Exif IFDs (IFD0, its chain and the Exif, GPS and interoperability
 * IFDs, at most 32) must lie inside the Exif bytes, without loops, with
 * every value's bytes inside too. A PNG chunk read here whose CRC fails
 * is dropped, as libpng drops it. Whatever fails those checks is dropped
 * and `dropped` says what and why; it never makes the image fail. Only
 * the first Exif, XMP and ICC of a file are kept; JPEG Extended XMP is
 * dropped (noted).
 *
 * OWNERSHIP: gi_metadata_read fills a gi_metadata whose exif, icc and xmp
 * buffers are malloc'ed and owned by it; release them with
 * gi_metadata_free(), which is also safe on a zeroed struct. Nothing else
 * keeps pointers into the input bytes, which may be freed at once.
 *
 * ORIENTATION: Exif IFD0 tag 0x0112 (a TIFF's tag 274), 1..8 (the
 * TIFF/Exif meaning: 1 rows top to bottom as stored, 6 the stored image
 * is shown turned 90 degrees clockwise, ...). gi_orientation_steps gives
 * the gi_transform(s) that turn stored pixels into what a viewer shows;
 * after applying them, set the tag to 1 with gi_metadata_set_orientation
 * before embedding.
 */
#define GI_METADATA_MAX_BYTES (16u << 20) /* one ICC profile or XMP packet */

struct gi_metadata {
    uint8_t *exif;       /* TIFF bytes from "II*\0" or "MM\0*" (JPEG's APP1 without
                            "Exif\0\0"; the whole of PNG's eXIf), or NULL */
    size_t exif_size;
    uint8_t *icc;        /* the ICC profile, its segments joined, or NULL */
    size_t icc_size;
    uint8_t *xmp;        /* the XMP packet (UTF-8 XML), or NULL */
    size_t xmp_size;
    int orientation;     /* 1..8 from Exif or a TIFF's tag; 1 when absent or out of range */
    int pages;           /* read from a file: the images it holds, a TIFF's pages, of
                            which only the first is decoded; 1 for every other file */
    int has_srgb;        /* PNG sRGB present, with its */
    int srgb_intent;     /* rendering intent 0..3 */
    uint32_t gamma;      /* PNG gAMA, gamma * 100000; 0 for none */
    int has_chrm;        /* PNG cHRM present: */
    uint32_t chrm[8];    /* white x y, red x y, green x y, blue x y, * 100000 */
    char dropped[512];   /* "" or what was dropped and why, "; " between */
};

/* Reads the metadata of PNG, JPEG or TIFF bytes into *out (always initialised;
 * other bytes give an empty one). GI_OK, or GI_ERR_NO_MEMORY with *out
 * empty and `dropped` saying so; a damaged container is never an error. */
GI_API gi_status gi_metadata_read(const void *bytes, size_t size, gi_metadata *out);
/* Frees the buffers and leaves an empty gi_metadata (orientation 1, pages 1). Safe
 * on a zeroed (also empty) or already freed struct, and on NULL. */
GI_API void gi_metadata_free(gi_metadata *m);
/* 1 when there is nothing to write (no Exif, ICC, XMP, sRGB, gAMA, cHRM). */
GI_API int gi_metadata_empty(const gi_metadata *m);

/* Sets the orientation (1..8): m->orientation, the Exif tag where the Exif
 * has one (rewritten in place; an absent tag means 1 and stays absent when
 * setting 1; to set another value the tag must exist), and an XMP
 * tiff:Orientation, so readers that prefer XMP agree. GI_ERR_INVALID_ARGUMENT
 * for a value outside 1..8, or for 2..8 on metadata with no tag to hold it. */
GI_API gi_status gi_metadata_set_orientation(gi_metadata *m, int orientation);

/* The transforms, in order, that turn stored pixels into the image a
 * viewer shows for an orientation: 1 none; 2 flip_h; 3 rotate180; 4 flip_v;
 * 5 transpose; 6 rotate90; 7 flip_h then rotate90 (a transverse); 8
 * rotate270. Returns the count (0..2); 0 for values outside 1..8. */
GI_API int gi_orientation_steps(int orientation, gi_transform steps[2]);
/* Turns *img as a viewer shows it for `orientation` (1 and out of range:
 * as it is), on ctx's backend; *img then owns the turned pixels (its old
 * ones freed). */
GI_API gi_status gi_orient_image(gi_context *ctx, gi_image *img, int orientation);

/* Inserts `m` into already encoded PNG or JPEG bytes (format AUTO: from
 * the signature), in that container's own form whatever the source was:
 *   PNG   after IHDR: iCCP (zlib-compressed here; sRGB is left out when
 *         there is an ICC profile, as the PNG spec asks), sRGB, gAMA, cHRM,
 *         eXIf, iTXt "XML:com.adobe.xmp" (uncompressed);
 *   JPEG  after SOI and a JFIF APP0: APP1 Exif, APP1 XMP, APP2 ICC_PROFILE
 *         segments of up to 65519 profile bytes each.
 * Parts the container cannot hold are left out (gi_metadata_unwritable
 * says which). The caller releases *out with gi_free().
 * GI_ERR_INVALID_ARGUMENT when `encoded` is not the given format's start
 * (a PNG must begin with its IHDR), GI_ERR_NO_MEMORY, GI_ERR_TOO_LARGE. */
GI_API gi_status gi_metadata_embed(const uint8_t *encoded, size_t size, gi_format format,
                            const gi_metadata *m, uint8_t **out, size_t *out_size);
/* How many parts of `m` an output in `format` leaves out (JPEG: Exif over
 * 65527 bytes, XMP over 65504, an ICC profile over 255 segments, gAMA and
 * cHRM, which JPEG has no place for; PNG: none; Netpbm: all, counted as
 * one, and gi_encode writes none), with a sentence naming them in
 * why[0..size) ("" when 0). why may be NULL. */
GI_API int gi_metadata_unwritable(const gi_metadata *m, gi_format format, char *why, size_t size);

/* ---------------------------------------------------------------- hist
 *
 * counts[c][b] = number of pixels whose channel c falls in bin b, where
 *   8 bits:  bin = v * bins / 256     (integer division), bins 1..256
 *   16 bits: bin = v * bins / 65536   (integer division), bins 1..65536
 * so 256 bins of a 16-bit image span 0..65535, 256 values each. Each
 * channel's counts sum to width * height; every other entry of counts
 * (past `bins` or `channels`) is 0. A gi_histogram is 2 MiB: keep it off
 * small stacks.
 */
#define GI_HIST_MAX_BINS 65536
typedef struct gi_histogram {
    int channels;
    int bins;
    int depth;      /* of the image counted: 8 or 16 */
    uint64_t counts[4][GI_HIST_MAX_BINS];
} gi_histogram;
GI_API gi_status gi_hist(gi_context *ctx, const gi_image *src, int bins,
                  gi_histogram *out);

/* Statistics of one channel from its 256-bin histogram. median is the
 * smallest value v with at least ceil(n/2) samples <= v. stddev is the
 * population standard deviation. From the exact integer sums n, S = sum v
 * and Q = sum v^2: mean = S / n and variance = Q / n - mean^2 in double
 * (each sum exact in a double below 2^53: 8-bit images under 2^37
 * samples). */
typedef struct gi_channel_stats {
    int min, max, median;
    double mean, stddev;
} gi_channel_stats;
GI_API void gi_hist_stats(const uint64_t counts256[256], gi_channel_stats *stats);
/* The same for a 16-bit image from its 65536-bin histogram (one bin per
 * value), where Q outgrows a double's 2^53: n, S and Q are exact integers,
 * mean = S / n correctly rounded (S < 2^53), and variance = (n Q - S^2) /
 * n^2, its numerator exact in 128 bits, then one division (within 2 ulp
 * of exact). min, max and median are exact. */
GI_API void gi_hist_stats16(const uint64_t counts65536[65536], gi_channel_stats *stats);

/* ---------------------------------------------------------------- compare
 *
 * Golden-image comparison of two images of the same width, height and
 * channel count (anything else is GI_ERR_INVALID_ARGUMENT: check the shapes
 * first when a mismatch is an answer rather than an error).
 * Images with alpha (2 or 4 channels) are compared premultiplied unless
 * straight_alpha is set: each colour sample v of a pixel with alpha A is
 * first replaced by (v * A + 127) / 255 (v A / 255 rounded to nearest, in
 * integers), alpha kept as stored, so pixels with alpha 0 are equal
 * whatever colour they store, and a colour counts as much as it shows.
 * Everything below is computed on those samples; with straight_alpha, on
 * the samples as stored. With
 * e = expected, a = actual, d = |e - a| per sample and T the tolerance:
 *   different_pixels  pixels where some channel has d > T
 *   max_abs_diff[c]   max d over channel c
 *   mean_abs_diff     sum d / (width * height * channels)
 *   mse               sum d^2 / (width * height * channels)
 *   psnr              10 log10(255^2 / mse) dB; INFINITY when mse is 0
 *   ssim_channel[c]   the mean structural similarity of Wang et al. 2004 on
 *                     channel c (alpha is a channel like the others)
 *   ssim              the mean of ssim_channel over the channels
 * Counts and sums are exact integers. SSIM, per channel, in float64:
 *   w[k] = g(k) / sum g, g(k) = exp(-k^2 / (2 * 1.5^2)), k = -5..5
 *     (sigma 1.5 truncated at 3.5 sigma: radius int(3.5 * 1.5 + 0.5) = 5)
 *   m_q = the separable w-filter of q (rows first, then columns) for
 *     q = e, a, e*e, a*a, e*a, outside pixels by the reflect border rule
 *   ve = m_ee - m_e^2, va = m_aa - m_a^2, cov = m_ea - m_e m_a  (population)
 *   S = (2 m_e m_a + C1)(2 cov + C2) / ((m_e^2 + m_a^2 + C1)(ve + va + C2)),
 *     C1 = (0.01 * 255)^2, C2 = (0.03 * 255)^2
 *   ssim_channel = mean of S over the pixels at least GI_SSIM_RADIUS from
 *     every edge. This is scikit-image's structural_similarity(e, a,
 *     gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
 *     data_range=255, channel_axis=-1) to about 1e-12.
 *   Images narrower or shorter than the window (2 * GI_SSIM_RADIUS + 1 =
 *     11 pixels), which scikit-image refuses, are not cropped in that
 *     direction: the mean covers every column (or row), and the filter
 *     reads outside by reflection as everywhere. So a 1x1 image has S of
 *     its one pixel: 1 when equal.
 * 16 BITS: both images must have the same depth (else
 *   GI_ERR_INVALID_ARGUMENT). Everything above holds with the 16-bit range:
 *   premultiplied colour (v * A + 32767) / 65535 (v A / 65535 correctly
 *   rounded: 65535 is odd, so no exact halves), tolerance 0..65535, PSNR
 *   10 log10(65535^2 / mse), SSIM with C1 = (0.01 * 65535)^2 and C2 =
 *   (0.03 * 65535)^2 (scikit-image's data_range=65535). The sums stay
 *   exact: d^2 < 2^32, so sum_squared_diff holds 2^32 samples.
 * DETERMINISM: the sums of S are added in a fixed order on every backend:
 * each row in segments of GI_SSIM_SEGMENT pixels from the first counted
 * column, each segment pairwise (lane i += lane i + h for h = 16, 8, 4, 2,
 * 1, missing lanes 0), the segments of a row in order, then the rows in
 * order. Every double operation is rounded on its own (no fused
 * multiply-add), so the CPU and CUDA backends give the same bits. Where
 * the 11x11 neighbourhood of a pixel is equal in both images, S is exactly
 * 1 and backends may skip the arithmetic: equal images are nearly free.
 */
#define GI_SSIM_RADIUS 5
#define GI_SSIM_SEGMENT 32

typedef struct gi_compare_params {
    int tolerance; /* 0..255 (16 bits: 0..65535), default 0: samples within it
                      count as equal */
    int ssim;      /* 1 (default): compute SSIM; 0: skip it (ssim fields 0) */
    int straight_alpha; /* 0 (default): colour premultiplied by alpha; 1: as stored */
} gi_compare_params;
GI_API void gi_compare_params_default(gi_compare_params *p);

typedef struct gi_compare_result {
    int width, height, channels;
    uint64_t pixels;            /* width * height */
    uint64_t different_pixels;
    double different_percent;   /* 100 * different_pixels / pixels */
    int max_abs_diff[4];        /* per channel; 0 beyond `channels` */
    uint64_t sum_abs_diff;      /* over every sample */
    uint64_t sum_squared_diff;
    double mean_abs_diff;
    double mse;
    double psnr;                /* INFINITY when the images are equal */
    double ssim;
    double ssim_channel[4];
} gi_compare_result;

/* Compares on ctx's backend (p NULL = defaults). The result is the same on
 * every backend and thread count, to the last bit. */
GI_API gi_status gi_compare(gi_context *ctx, const gi_image *expected, const gi_image *actual,
                     const gi_compare_params *p, gi_compare_result *result);

/* ---------------------------------------------------------------- comparing files
 *
 * Golden-image tests over files, the way `gpuimg compare` runs them: each
 * pair is decoded (turned as a viewer shows it with auto_orient), its
 * shapes checked, compared with gi_compare, and counted equal when at most
 * max_different pixels (or percent of the pixels) differ by more than the
 * tolerance. Where they differ and diff_out is set, a diff picture is
 * written there (PNG, its parent directories created): the expected image
 * faded to light gray, differing pixels red, brighter for larger
 * differences. Many pairs (two trees) are shared out to worker threads,
 * each with its own context; one bad file fails its pair alone.
 */
typedef enum gi_pair_status { /* in order of severity */
    GI_PAIR_EQUAL = 0,    /* within the limits */
    GI_PAIR_DIFFERENT,
    GI_PAIR_SHAPE,        /* a different size or channel count */
    GI_PAIR_ONLY_EXPECTED,/* actual is NULL */
    GI_PAIR_ONLY_ACTUAL,  /* expected is NULL */
    GI_PAIR_ERROR         /* a file could not be read or a diff written */
} gi_pair_status;

typedef struct gi_file_pair {
    const char *expected, *actual; /* paths; NULL: missing on that side */
    const char *diff_out;          /* where to write a diff picture, or NULL */
    /* filled in by gi_compare_files */
    gi_pair_status status;
    gi_compare_result result;      /* GI_PAIR_EQUAL and GI_PAIR_DIFFERENT */
    char detail[600];              /* GI_PAIR_SHAPE: both shapes; GI_PAIR_ERROR: why */
} gi_file_pair;

typedef struct gi_compare_files_options {
    gi_compare_params compare;     /* tolerance, and whether to compute SSIM */
    double max_different;          /* >= 0; default 0 */
    int max_is_percent;            /* max_different is a percentage of the pixels */
    int auto_orient;               /* compare as Exif Orientation says a viewer shows them */
    gi_load_limits limits;
    gi_device device;
    int workers;                   /* threads; 0: one per core (never more than pairs) */
    int cpu_threads;               /* a lone worker's CPU threads (0: all); several
                                      workers take one each */
} gi_compare_files_options;
GI_API void gi_compare_files_options_default(gi_compare_files_options *opts);

/* Compares every pair and fills in its status, result and detail. Returns
 * GI_OK when the pairs were compared (each status says how), or
 * GI_ERR_INVALID_ARGUMENT for bad options, before any pair. */
GI_API gi_status gi_compare_files(const gi_compare_files_options *opts, gi_file_pair *pairs,
                           size_t count);

/* ---------------------------------------------------------------- steps
 *
 * Any operation with its parameters is a gi_op; several of them in a row
 * are a chain of steps, each step's output the next step's input.
 * gi_apply runs a chain on one image with the pixels kept where the backend
 * computes between steps: the CPU backend never copies, the CUDA backend
 * uploads the source once and downloads the result once. The bytes are
 * exactly those of the steps run one at a time (gi_blur, gi_sobel, ...).
 * Steps that change the size or channel count pass it on (sobel with gray
 * gives one channel, rotate 90 swaps width and height). hist can only be
 * the last step; it fills `hist` and leaves dst alone (NULL is fine).
 */
typedef enum gi_op_kind {
    GI_OP_BLUR = 0,
    GI_OP_SOBEL,
    GI_OP_TRANSFORM,
    GI_OP_HIST,
    GI_OP_CONVOLVE,
    GI_OP_RESIZE,
    GI_OP_CROP
} gi_op_kind;

/* Any operation with its parameters; only the member for `kind` is read. */
typedef struct gi_op {
    gi_op_kind kind;
    gi_blur_params blur;
    gi_sobel_params sobel;
    gi_transform transform;
    int bins;
    gi_convolve_params convolve;
    gi_resize_params resize;
    gi_crop_params crop;
} gi_op;

#define GI_MAX_STEPS 16 /* steps in one chain */

/* ---------------------------------------------------------------- parameters
 *
 * Every parameter of every operation, once: its name, type, range, default
 * and help sentence, and where it lives in gi_op. The command line's
 * options and --help, the man page, Python's keywords and gpuimg serve's
 * requests are all made from this table, and check values with
 * gi_op_param_check, so that a rule is written once; the operations check
 * their parameters with it too, and add only what depends on the image or
 * on other parameters (an 8-bit image's 256 bins at most, resize's size
 * against its scale, crop's rectangle inside the image).
 */
typedef enum gi_param_type {
    GI_PARAM_DOUBLE = 0, /* a finite number: a double in gi_op */
    GI_PARAM_INT,        /* a whole number: an int */
    GI_PARAM_CHOICE,     /* one of `choices`, stored as its index: an enum */
    GI_PARAM_FLAG,       /* on when given: an int, 0 or 1 */
    GI_PARAM_BORDER,     /* a gi_border: --border and --border-value */
    GI_PARAM_MASK        /* convolve's mask: width, height and the values */
} gi_param_type;

typedef enum gi_param_form {
    GI_PARAM_OPTION = 0, /* --name VALUE (or -s VALUE) */
    GI_PARAM_POSITIONAL, /* a word before the files: crop's X Y W H */
    GI_PARAM_OWN         /* the command parses it its own way (the mask, border) */
} gi_param_form;

typedef struct gi_op_param {
    gi_op_kind op;
    const char *name;      /* "sigma": --sigma, and Python's keyword */
    char short_name;       /* 's' for -s; 0 when none */
    const char *metavar;   /* "S": what --help shows for the value */
    gi_param_type type;
    gi_param_form form;
    double min, max;       /* DOUBLE and INT: the range, inclusive */
    int min_exclusive;     /* DOUBLE: min itself is refused (> min) */
    const char *const *choices; /* CHOICE: the names in enum order, NULL-ended */
    double default_value;  /* what an unset parameter holds (may be outside the
                              range: "none given", as radius -1) */
    const char *default_text; /* the default as the help says it, or NULL */
    const char *help;
    size_t offset;         /* of the value in gi_op */
    size_t given_offset;   /* nonzero: an int in gi_op set to 1 when the
                              value is given (sobel's use_threshold) */
} gi_op_param;

/* The parameters of an operation, in the order --help lists them;
 * *count of them. */
GI_API const gi_op_param *gi_op_params(gi_op_kind kind, int *count);
/* The parameter `name` of an operation, or NULL. */
GI_API const gi_op_param *gi_op_param_find(gi_op_kind kind, const char *name);
/* Sets a DOUBLE, INT, CHOICE (the index) or FLAG parameter to `value`,
 * after checking it against the range; `shown` is the value as the user
 * wrote it, for the message: GI_ERR_INVALID_ARGUMENT with
 * "sigma '0': must be greater than 0". */
GI_API gi_status gi_op_param_check(const gi_op_param *p, double value, const char *shown);
GI_API gi_status gi_op_param_set(const gi_op_param *p, double value, const char *shown, gi_op *op);
/* Parses `text` (a number, a choice's name; NULL for a flag) as the
 * parameter and sets it, with gi_op_param_set's checks and messages
 * ("sigma 'abc': not a number"). */
GI_API gi_status gi_op_param_parse(const gi_op_param *p, const char *text, gi_op *op);
/* The value a DOUBLE, INT, CHOICE or FLAG parameter holds in op. */
GI_API double gi_op_param_get(const gi_op_param *p, const gi_op *op);
/* An operation with every parameter at its default. */
GI_API void gi_op_default(gi_op_kind kind, gi_op *op);

/* The size of the chain's result; fails for n outside 1..GI_MAX_STEPS or
 * hist before the last step. */
GI_API gi_status gi_apply_size(const gi_image *src, const gi_op *steps, int n, int *width, int *height,
                        int *channels);
GI_API gi_status gi_apply(gi_context *ctx, const gi_image *src, const gi_op *steps, int n, gi_image *dst,
                   gi_histogram *hist);
/* gi_apply on pixels that live in the GPU's memory, for arrays that
 * another library (CuPy, PyTorch) keeps there: src->data and dst->data are
 * device pointers of the GPU that ctx's CUDA backend uses (ctx created for
 * GI_DEVICE_CUDA on a thread whose current device was that GPU: device 0
 * unless the caller chose another), each pointer and stride a multiple of
 * GI_DEVICE_ALIGN bytes. Nothing crosses the bus but a chain's histogram
 * counts (a chain ending in hist fills *hist on the host; dst unused). The
 * source's writes must be finished before the call (synchronize the stream
 * that wrote it); the call returns when the result is in place. The bytes
 * are gi_apply's. Other contexts fail with GI_ERR_INVALID_ARGUMENT. */
#define GI_DEVICE_ALIGN 256
GI_API gi_status gi_apply_device(gi_context *ctx, const gi_image *src, const gi_op *steps, int n,
                          gi_image *dst, gi_histogram *hist);

/* ---------------------------------------------------------------- plan */

/* What is coming, for AUTO's plan (other devices keep it and ignore it):
 * `images` images (1 for a single one; each chain run counts one off),
 * each about the size of the next one, through the same steps. With a
 * size, the plan is made at once, and when it says CUDA, CUDA starts in
 * the background now, so that its start-up overlaps the caller's
 * decoding; with width, height or channels 0 each chain plans alone.
 * Once a hint with a size has planned the images onto the CPU, a later
 * chain starts CUDA only where that chain alone would finish first on the
 * GPU, start-up included: one large image does not stand for all those
 * to come. gi_batch_run gives its lanes this hint itself,
 * from the median input. */
typedef struct gi_plan_hint {
    long images;        /* >= 1 */
    const gi_op *steps; /* as for gi_apply */
    int n_steps;
    int width, height, channels; /* the next image's, or 0 */
    double ready_in_ms; /* until the next image's pixels are ready (its decoding), or 0 */
    int pipelined;      /* 1: other threads decode and encode other images meanwhile,
                           so the GPU's copies and kernels cost the cores little */
} gi_plan_hint;
GI_API gi_status gi_context_plan_hint(gi_context *ctx, const gi_plan_hint *hint);

/* ---------------------------------------------------------------- jobs
 *
 * A job is the whole of one image's work, bytes to bytes: decode the input
 * (with `limits`), run the steps, encode the result with `save`. Which
 * backend computes and where the pixels live in between is the context's
 * business (see gi_apply). A job whose last step is hist gives the
 * histogram and no image.
 * The input's metadata (see METADATA) goes into the output, in the
 * output's container, unless `strip`. With `auto_orient` the input's Exif
 * Orientation is applied to the pixels first, as steps of the same chain,
 * and the output says Orientation 1.
 */
typedef struct gi_job {
    const gi_op *steps;
    int n_steps;
    gi_load_limits limits;
    gi_save_options save; /* format AUTO: the output path's extension, else
                             (in memory, or a name without one) the input's;
                             metadata: ignored, the job sets it */
    int auto_orient;      /* turn the pixels as a viewer shows them first */
    int strip;            /* 1: write no metadata; GI_STRIP_BUT_COLOUR: only the
                             colour description (ICC profile, PNG sRGB, gAMA,
                             cHRM), no Exif nor XMP (what thumbnails keep) */
} gi_job;
#define GI_STRIP_BUT_COLOUR 2
/* No steps yet, default limits and save options. */
GI_API void gi_job_default(gi_job *job);

/* In memory: release *out with gi_free(). For a hist job, out
 * and out_size may be NULL and *hist is filled. `name` names the input in
 * error messages (NULL: "input"). */
GI_API gi_status gi_job_run_memory(gi_context *ctx, const gi_job *job, const void *in, size_t in_size,
                            const char *name, uint8_t **out, size_t *out_size,
                            gi_histogram *hist);
/* From a file to a file ("-": standard input or output), written
 * atomically as gi_save_file does. For a hist job out_path is ignored (and
 * may be NULL). */
GI_API gi_status gi_job_run_file(gi_context *ctx, const gi_job *job, const char *in_path,
                          const char *out_path, gi_histogram *hist);
/* The middle of a job, for pixels decoded already (a frame of a stream):
 * allocates *dst (not for a job ending in hist) and runs the job's steps
 * on src, after the turn that meta's orientation asks for when the job has
 * auto_orient, all in one chain; then sets meta's orientation to 1. The job
 * needs at least one step. */
GI_API gi_status gi_job_apply(gi_context *ctx, const gi_job *job, const gi_image *src,
                       gi_metadata *meta, gi_image *dst, gi_histogram *hist);

/* Histograms of a JPEG file as the host decodes it (gi_load_file with
 * these limits) where the exact decoder takes it (a JPEG it decodes
 * itself), counted on the CPU band by band as its decoding threads
 * (limits->decode_threads) make the rows, so the image is never held
 * whole: hists[i] with bins[i] bins, for each i < n_bins, the counts
 * gi_hist gives for the image gi_load_file gives. *width and *height: its
 * size. *counted: 1; or 0, with GI_OK and nothing done, for any other file
 * (not a JPEG, one the exact decoder leaves to stb, standard input or a
 * pipe, a file it cannot read): then load it and count it (gi_load_file,
 * gi_hist), which decodes or refuses it as ever. limits may be NULL (the
 * defaults). */
GI_API gi_status gi_hist_file_streamed(const char *path, const gi_load_limits *limits, const int *bins,
                                int n_bins, gi_histogram *hists, int *width, int *height,
                                int *counted);

/* ---------------------------------------------------------------- batch
 *
 * Many jobs, file to file, the way `gpuimg -o DIR` runs them: codec workers
 * read and decode inputs, compute lanes (one context each; on CUDA a stream
 * with its own reused buffers) run the steps (and encode a JPEG output,
 * where they computed), and the workers encode the rest and
 * write, three stages joined by bounded queues so that the images in
 * memory are bounded however many files there are (the batch's own
 * memory per item is the caller's array and a size_t). The heaviest inputs (decoded size from the
 * header) start first. Under GI_DEVICE_AUTO the lanes plan from the first
 * input's header and the number of items (gi_plan_hint); when the plan
 * picks CUDA, a bridge lane computes on the CPU while CUDA starts, so the
 * workers never wait for it; both backends give the same bytes, so which
 * lane took an image never shows. One bad input fails alone.
 *
 * On CUDA, a JPEG that the exact decoder takes crosses to the device as
 * its coefficients, and an exact JPEG output comes back as the file's
 * bytes: the codec workers run the codecs' entropy halves, the lanes their
 * arithmetic halves beside the steps (docs/gpu-jpeg-path.md). The bytes
 * are those of the CPU.
 */
typedef enum gi_item_status {
    GI_ITEM_NOT_STARTED = 0, /* still so after a stop */
    GI_ITEM_OK,
    GI_ITEM_FAILED,
    GI_ITEM_SKIPPED          /* skip_existing and the output exists */
} gi_item_status;

/* Where an image's time goes: reading the input file, decoding, CUDA
 * start-up (the image that paid for it), upload, kernels (on the CPU the
 * whole operation), download, encoding, writing the output file (into
 * place). A JPEG decoded in a group on the GPU carries its share of the
 * group's decode. Netpbm output is written as it is encoded: its time is
 * the encode's. An exact JPEG output encoded where the steps ran counts
 * as the encode: on CUDA its kernels and the download of its bytes, on
 * the CPU its coding, taken out of the kernel time (a blur coded as its
 * rows come: the bands' coding time over the threads that ran them). */
typedef enum gi_stage {
    GI_STAGE_READ, GI_STAGE_DECODE, GI_STAGE_STARTUP, GI_STAGE_UPLOAD, GI_STAGE_KERNEL,
    GI_STAGE_DOWNLOAD, GI_STAGE_ENCODE, GI_STAGE_WRITE, GI_STAGE_COUNT
} gi_stage;
/* "read", "decode", "startup", "upload", "kernel", "download", "encode",
 * "write". */
GI_API const char *gi_stage_name(gi_stage stage);

/* An item's files handed over open rather than named (gpuimg serve): the
 * batch then opens nothing by name, and the item's in and out only name
 * the files in its messages. */
typedef struct gi_item_files {
    int in_fd;            /* read with pread from its start; -1: it could not be opened */
    int in_errno;         /* why not, when in_fd is -1 */
    int out_dir_fd;       /* the directory that receives the output, or -1: */
    const char *out_name; /* its name there, one component */
    int out_fd;           /* >= 0 (out_dir_fd -1): written straight there, as
                             standard output is (a client's, handed over) */
    /* When set and non-zero as the output is complete, it is not put in
     * place (the item fails): the caller that wanted it has gone. */
    const volatile int *abandon;
} gi_item_files;

typedef struct gi_batch_item {
    /* the caller's, never freed by the library */
    char *in, *out;
    const char *problem; /* when set, the item fails with this reason, unrun */
    const gi_item_files *files; /* NULL: in and out are opened by name */
    /* filled in by gi_batch_run */
    gi_item_status status;
    char *reason;        /* a failed item's line, naming the file: gi_free() it */
    double ms;           /* the sum of stage_ms (time spent queued left out) */
    double megapixels;
    double stage_ms[GI_STAGE_COUNT];
    const char *backend; /* "cpu" or "cuda": where the steps ran */
    /* gi_last_codec after each (NULL: not reached); decoded_by, for a JPEG
     * whose steps ran on CUDA: "gpuimg-jpeg-cuda" where its arithmetic half
     * ran there, "gpuimg-jpeg-cuda-huffman" where its Huffman codes were
     * decoded there too (docs/gpu-jpeg-path.md) */
    const char *decoded_by, *encoded_by;
    /* The texts below are the library's, valid during on_item only, and ""
     * at any other time: a batch keeps no text for an item that has ended,
     * so that its memory does not grow with the number of items. */
    const char *choice;        /* the device and why (gi_context_last_choice); on
                                  CUDA in a batch, first its GPU and why: "gpu 1:
                                  finishes it first (...); ..." */
    const char *note;          /* why the steps fell back to the CPU, or "" */
    const char *metadata_note; /* metadata dropped on reading or left out on
                                  writing, and why, or "" */
    const char *codecs_note;   /* where a JPEG's arithmetic half ran, and why
                                  (the route's plan); else "" */
    const char *warning;       /* what the user should hear of although the
                                  item went on: "the TIFF has 4 pages; only the
                                  first was read"; else "" */
    int depth_read, depth_written; /* bits a sample decoded and encoded (8 or
                                      16; 0: not reached) */
} gi_batch_item;

typedef struct gi_batch_options {
    gi_job job;          /* save.format AUTO: from each output's extension */
    gi_device device;
    int codec_workers;   /* decode/encode threads; 0: one per core */
    int lanes;           /* compute lanes, on each GPU when on CUDA; 0: four (one for a
                            single item), and on CUDA one a GPU for each 100 items,
                            up to twelve, as half the GPU's memory holds them */
    int lane_cpu_threads;/* CPU threads of each lane; 0: the cores shared out */
    /* The cores the batch shares out among its codec workers and lanes
     * (and a lone image's decode and steps); 0: every online core. A
     * caller running several batches at once (gpuimg serve) gives each
     * its share, so that they do not each start a thread per core. */
    int cores;
    int no_bridge;       /* 1: no CPU bridge lane while CUDA starts */
    int skip_existing;   /* an output that exists already is not redone */
    /* Parent directories of outputs below this one are created (none of
     * them may be a symbolic link); NULL: none are. */
    const char *output_root;
    /* Read between images: once non-zero no new input starts, and the
     * images in flight are finished. Settable from a signal handler. */
    const volatile sig_atomic_t *stop;
    /* Called once per item as it ends (ok, failed or skipped), one call at
     * a time, from any of the batch's threads. */
    void (*on_item)(void *user, const gi_batch_item *item);
    void *user;
    /* When set, filled in as the batch ends: how long its threads waited
     * for work or for room in a queue (what the stages leave idle). */
    struct gi_batch_waits *waits;
    /* A context that the first compute lane uses instead of creating one,
     * so that a long-lived caller (gpuimg serve) keeps CUDA started from
     * batch to batch: of the same device as `device`, used by this batch
     * alone while it runs, given the batch's hints and its first lane's CPU
     * threads, never destroyed by it.
     * NULL: every lane creates its own. */
    gi_context *context;
    /* The GPUs whose lanes compute when the batch runs on CUDA (asked
     * for, or AUTO's plan): the lanes of `lanes` on each, each lane with its own
     * stream and pinned staging, the codec workers shared. An image goes to
     * the GPU that will finish it first (its queued work over its rate).
     * A GPU that fails hands its images to the others (under AUTO, to the
     * CPU when none is left). count 0: every visible GPU. With `context`
     * set, that context's GPU alone, unless GPUs are named here: then the
     * context's lanes run on its GPU and the others named get lanes of
     * their own. */
    gi_gpus gpus;
} gi_batch_options;
typedef struct gi_batch_waits {
    double waited_ms; /* summed over the threads */
    int threads;      /* codec workers and compute lanes that ran;
                         0 when the calling thread ran everything */
} gi_batch_waits;
GI_API void gi_batch_options_default(gi_batch_options *opts);

/* Runs every item. Returns GI_OK when the batch ran (each item's status
 * says how it went), or an error before any item ran and any file was
 * written: bad options, or GI_ERR_INVALID_ARGUMENT for two items that
 * would write one output file (gi_batch_check_outputs: else both would
 * say ok, and one result would be lost). One item runs in the calling
 * thread alone. */
GI_API gi_status gi_batch_run(const gi_batch_options *opts, gi_batch_item *items, size_t count);

/* Whether two items would write one output file: GI_OK, or
 * GI_ERR_INVALID_ARGUMENT naming the first item in list order whose
 * output an earlier item writes, that item and the file, as
 *   "b.png: a.png writes the same output file, out/a.png"
 *   "b.png: its output ./out/a.png is the file a.png writes, out/a.png"
 * (the second where the two name it differently), followed by
 * " (and N more inputs whose output another input writes)" where there
 * are more. Items with a problem are left out: they write nothing.
 * Outputs are put in place by renaming, so two are one file when they
 * name one entry of one directory, which is found as the file system
 * stands at the call: the deepest directory of the output's path that
 * exists is known by its device and inode (so "out/a.png",
 * "./out//a.png", "/abs/out/a.png" and "link/a.png", link a symbolic link
 * to out, are one), and the path below it, which the batch would create,
 * by its components, with empty and "." ones dropped and ".." taking the
 * one before it. The last component is not followed: an output that is a
 * symbolic link is replaced, not written through. Names are compared byte
 * for byte (on a file system that ignores case, A.png and a.png are one
 * file that this does not see). "-" is standard output. An item handed
 * over open (files) is known by its out_dir_fd and out_name, or its
 * out_fd's file.
 * gi_batch_run checks its items with this before it runs any. A caller
 * that runs a batch in parts (gpuimg --shard K/N runs the positions K,
 * K+N, ... of its list) checks the whole list first, so that a clash
 * between two parts refuses every part alike. */
GI_API gi_status gi_batch_check_outputs(const gi_batch_item *items, size_t count);

/* ---------------------------------------------------------------- streams
 *
 * A stream of images in, as many out, in order: `in` ("-": standard
 * input) holds concatenated PNM/PAM images (ffmpeg -f image2pipe -vcodec
 * ppm); a PNG or JPEG is a stream of one. The results go to `out` ("-":
 * standard output; else one file, written atomically). Three threads are
 * joined by queues two images deep: a reader decodes the next image, the
 * calling thread runs the job's steps on a context of its own, and a
 * writer encodes and writes the previous result, so the three overlap and
 * memory stays flat for any number of images. The output is opened at
 * the first good image: a stream that fails on its first image (or is
 * empty) leaves no file. When an image fails (a truncated one, say), the
 * images before it are kept and the error names its number ("standard
 * input: image 3: ...", or the input's path). No signal handler is installed: a caller that
 * wants a partial output removed on SIGINT calls gi_remove_partial_outputs
 * from its own handler.
 */
typedef struct gi_stream_frame {
    size_t number;               /* from 1 */
    double decode_ms, compute_ms, encode_ms;
    const char *backend;         /* where the steps ran: "cpu" or "cuda" */
    char metadata_dropped[512];  /* metadata dropped on reading, or "" */
    char metadata_left_out[300]; /* metadata the output's format cannot hold, or "" */
    int depth_read, depth_written; /* bits a sample decoded and encoded: 8 or 16 */
} gi_stream_frame;

typedef struct gi_stream_options {
    gi_job job;        /* at least one step; save.format AUTO: from out's extension */
    gi_device device;
    int cpu_threads;   /* the context's CPU threads; 0: one per core */
    /* Called after each image is written, from the writer thread. */
    void (*on_frame)(void *user, const gi_stream_frame *frame);
    void *user;
} gi_stream_options;
/* The default job (no steps yet), GI_DEVICE_AUTO, no callback. */
GI_API void gi_stream_options_default(gi_stream_options *opts);

/* Runs the job on every image of the stream. GI_OK when every image was
 * written; else the first failure, with the images before it written.
 * *written (may be NULL): how many images were written. */
GI_API gi_status gi_stream_run(const char *in, const char *out, const gi_stream_options *opts,
                        size_t *written);

#ifdef __cplusplus
}
#endif
#endif /* GPUIMG_H */
