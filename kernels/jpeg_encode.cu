/* The exact JPEG writer on the GPU: stb_image_write 1.16's scan, byte for
 * byte the CPU writer's (lib/codec/jpeg/jpeg_scan.c is the definition these
 * kernels mirror; it says why its bytes are stb's).
 *
 * The float half (colour conversion, 4:2:0 chroma means, the AAN forward
 * DCT, quantization) is the same IEEE single-precision operations in the
 * same order: every operation is an explicit round-to-nearest intrinsic
 * (__fadd_rn, __fmul_rn ...), which nvcc never contracts into an FMA, so
 * each value is the CPU's value. One thread makes one 8x8 block.
 *
 * The Huffman half is integer work split in three so that it runs in
 * parallel although the bit stream is serial: each block's bit count
 * (its DC difference needs only the DC of the block before it of the same
 * component, known once every block is transformed), an exclusive sum of
 * the counts (each block's first bit), then every block writes its codes
 * at its own offset, OR-ing them into words that neighbouring blocks may
 * share. The last block appends stb's padding (seven 1 bits; only whole
 * bytes are kept). Byte stuffing (0x00 after each 0xFF) is left to the
 * host, which copies the bytes into the file anyway. */
#include <cub/device/device_scan.cuh>

#include "gi_kernels.h"

namespace {

constexpr int THREADS = 128;

__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }

/* The frame: MCUs of 16x16 (4:2:0: four luma blocks, then Cb and Cr) or
 * 8x8 (4:4:4: Y, Cb, Cr), in raster order; block b of the scan is block
 * b % per_mcu of MCU b / per_mcu. */
struct frame {
    const uint8_t *src;
    size_t pitch;
    int width, height, channels;
    int subsample, per_mcu, mcus_x;
    long long blocks;
};

/* stb's colour conversion of pixel (x, y), clamped into the image (its
 * edge rule: the last row and column repeat). Grey (1 or 2 channels) is
 * r = g = b; a 4th channel is ignored. */
__device__ void ycc(const frame &f, int x, int y, float out[3])
{
    x = min(x, f.width - 1);
    y = min(y, f.height - 1);
    const uint8_t *p = f.src + (size_t)y * f.pitch + (size_t)x * f.channels;
    const int gi = f.channels > 2 ? 1 : 0, bi = f.channels > 2 ? 2 : 0;
    float r = p[0], g = p[gi], b = p[bi];
    out[0] = sub(add(add(mul(0.29900f, r), mul(0.58700f, g)), mul(0.11400f, b)), 128.0f);
    out[1] = add(sub(mul(-0.16874f, r), mul(0.33126f, g)), mul(0.50000f, b));
    out[2] = sub(sub(mul(0.50000f, r), mul(0.41869f, g)), mul(0.08131f, b));
}

/* The AAN forward DCT of 8 points, d[0], d[s], ... d[7 s], in place, each
 * operation as jpeg_scan.c's fdct8 orders it. */
__device__ void fdct8(float *d, int s)
{
    float t0 = add(d[0], d[7 * s]), t7 = sub(d[0], d[7 * s]);
    float t1 = add(d[s], d[6 * s]), t6 = sub(d[s], d[6 * s]);
    float t2 = add(d[2 * s], d[5 * s]), t5 = sub(d[2 * s], d[5 * s]);
    float t3 = add(d[3 * s], d[4 * s]), t4 = sub(d[3 * s], d[4 * s]);
    float t10 = add(t0, t3), t13 = sub(t0, t3), t11 = add(t1, t2), t12 = sub(t1, t2);
    d[0] = add(t10, t11);
    d[4 * s] = sub(t10, t11);
    float z1 = mul(add(t12, t13), 0.707106781f);
    d[2 * s] = add(t13, z1);
    d[6 * s] = sub(t13, z1);
    float o10 = add(t4, t5), o11 = add(t5, t6), o12 = add(t6, t7);
    float z5 = mul(sub(o10, o12), 0.382683433f);
    float z2 = add(mul(o10, 0.541196100f), z5);
    float z4 = add(mul(o12, 1.306562965f), z5);
    float z3 = mul(o11, 0.707106781f);
    float z11 = add(t7, z3), z13 = sub(t7, z3);
    d[5 * s] = add(z13, z2);
    d[3 * s] = sub(z13, z2);
    d[s] = add(z11, z4);
    d[7 * s] = sub(z11, z4);
}

/* Block b's 64 samples: luma, or 4:4:4 chroma, at full resolution; 4:2:0
 * chroma as the means ((a + b) + c + d) * 0.25 of 2x2 converted samples. */
__device__ void block_samples(const frame &f, long long b, float s[64])
{
    const int mcu = (int)(b / f.per_mcu), k = (int)(b % f.per_mcu);
    const int mx = mcu % f.mcus_x, my = mcu / f.mcus_x;
    float c[3];
    if (!f.subsample || k < 4) {
        const int comp = f.subsample ? 0 : k;
        const int x0 = f.subsample ? 16 * mx + 8 * (k & 1) : 8 * mx;
        const int y0 = f.subsample ? 16 * my + 8 * (k >> 1) : 8 * my;
        for (int r = 0; r < 8; r++)
            for (int x = 0; x < 8; x++) {
                ycc(f, x0 + x, y0 + r, c);
                s[8 * r + x] = c[comp];
            }
        return;
    }
    const int comp = k - 3; /* 4: Cb, 5: Cr */
    for (int r = 0; r < 8; r++)
        for (int x = 0; x < 8; x++) {
            const int px = 2 * (8 * mx + x), py = 2 * (8 * my + r);
            float a[3], bb[3], cc[3], d[3];
            ycc(f, px, py, a);
            ycc(f, px + 1, py, bb);
            ycc(f, px, py + 1, cc);
            ycc(f, px + 1, py + 1, d);
            s[8 * r + x] = mul(add(add(add(a[comp], bb[comp]), cc[comp]), d[comp]), 0.25f);
        }
}

/* Transform and quantize every block: rows first, then columns (stb's
 * order), scaled, rounded half away from zero by truncating v +- 0.5. */
__global__ void encode_transform(frame f, const gi_cuda_jpeg_enc_tables *t, int16_t *coef)
{
    const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= f.blocks) return;
    float s[64];
    block_samples(f, b, s);
    for (int r = 0; r < 8; r++) fdct8(s + 8 * r, 1);
    for (int x = 0; x < 8; x++) fdct8(s + x, 8);
    const int k = (int)(b % f.per_mcu);
    const float *scale = t->scale[(f.subsample ? k >= 4 : k > 0) ? 1 : 0];
    int16_t *out = coef + 64 * b;
    for (int i = 0; i < 64; i += 2) {
        float v0 = mul(s[i], scale[i]), v1 = mul(s[i + 1], scale[i + 1]);
        int q0 = __float2int_rz(add(v0, copysignf(0.5f, v0)));
        int q1 = __float2int_rz(add(v1, copysignf(0.5f, v1)));
        *(uint32_t *)(out + i) = (uint32_t)(uint16_t)q0 | (uint32_t)(uint16_t)q1 << 16;
    }
}

/* The scan block before b of the same component, or -1 for its first. */
__device__ long long previous_of_component(const frame &f, long long b)
{
    const int k = (int)(b % f.per_mcu);
    if (f.subsample && k > 0 && k < 4) return b - 1;
    long long p = f.subsample && k == 0 ? b - f.per_mcu + 3 : b - f.per_mcu;
    return p >= 0 ? p : -1;
}

/* The bits of one block: counted, or OR-ed into the words from bit `pos`
 * on (bit 0 the most significant of words[0]). */
template <bool EMIT> struct bits {
    uint32_t *words;
    unsigned long long pos;

    __device__ void put(uint32_t value, int len)
    {
        if (EMIT && len > 0) {
            const int shift = (int)(pos & 31);
            const unsigned long long v = (unsigned long long)value << (64 - shift - len);
            uint32_t *w = words + (pos >> 5);
            atomicOr(w, (uint32_t)(v >> 32));
            if ((uint32_t)v) atomicOr(w + 1, (uint32_t)v);
        }
        pos += len;
    }

    /* jpeg_scan.c's put_value: symbol run << 4 | size, then the size low
     * bits of the value (its one's complement when negative). */
    __device__ void value(const uint16_t *code, const uint8_t *len, int run, int v)
    {
        const unsigned magnitude = v < 0 ? -(unsigned)v : (unsigned)v;
        const int size = magnitude ? 32 - __clz(magnitude) : 0;
        const unsigned low = (unsigned)(v < 0 ? v - 1 : v) & ((1u << size) - 1);
        const int symbol = run << 4 | size;
        put((uint32_t)code[symbol] << size | low, len[symbol] + size);
    }
};

/* jpeg_scan.c's encode_block: the DC difference, the AC coefficients in
 * zigzag order as runs of zeros (16 at a time: ZRL), and an end of block
 * unless the last one is not zero. */
template <bool EMIT>
__device__ void code_block(const frame &f, const gi_cuda_jpeg_enc_tables *t,
                           const int16_t *coef, long long b, bits<EMIT> &w)
{
    const int k = (int)(b % f.per_mcu);
    const int table = (f.subsample ? k >= 4 : k > 0) ? 1 : 0;
    const uint16_t *dc_code = t->code[2 * table], *ac_code = t->code[2 * table + 1];
    const uint8_t *dc_len = t->len[2 * table], *ac_len = t->len[2 * table + 1];
    const int16_t *blk = coef + 64 * b;
    const long long prev = previous_of_component(f, b);
    const int predictor = prev >= 0 ? coef[64 * prev] : 0;
    w.value(dc_code, dc_len, 0, blk[0] - predictor);
    int next = 1;
    for (int z = 1; z < 64; z++) {
        const int v = blk[t->natural_order[z]];
        if (v == 0) continue;
        int run = z - next;
        for (; run >= 16; run -= 16) w.put(ac_code[0xF0], ac_len[0xF0]);
        w.value(ac_code, ac_len, run, v);
        next = z + 1;
    }
    if (next != 64) w.put(ac_code[0], ac_len[0]);
}

__global__ void encode_count(frame f, const gi_cuda_jpeg_enc_tables *t, const int16_t *coef,
                             unsigned long long *counts)
{
    const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b > f.blocks) return;
    if (b == f.blocks) { /* the sum's last entry: the total */
        counts[b] = 0;
        return;
    }
    bits<false> w = {nullptr, 0};
    code_block(f, t, coef, b, w);
    counts[b] = w.pos;
}

__global__ void encode_emit(frame f, const gi_cuda_jpeg_enc_tables *t, const int16_t *coef,
                            const unsigned long long *offsets, uint32_t *words)
{
    const long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= f.blocks) return;
    bits<true> w = {words, offsets[b]};
    code_block(f, t, coef, b, w);
    if (b == f.blocks - 1) w.put(0x7F, 7); /* stb's padding */
}

/* Words to bytes, most significant first. */
__global__ void encode_bytes(uint32_t *words, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) words[i] = __byte_perm(words[i], 0, 0x0123);
}

frame make_frame(const uint8_t *src, size_t pitch, int width, int height, int channels,
                 int subsample)
{
    frame f = {src, pitch, width, height, channels, subsample, subsample ? 6 : 3, 0, 0};
    const int mcu = subsample ? 16 : 8;
    f.mcus_x = (width + mcu - 1) / mcu;
    f.blocks = (long long)f.mcus_x * ((height + mcu - 1) / mcu) * f.per_mcu;
    return f;
}

unsigned grid_for(long long n)
{
    return (unsigned)((n + THREADS - 1) / THREADS);
}

} // namespace

extern "C" long long gi_cuda_jpeg_enc_blocks(int width, int height, int subsample)
{
    return make_frame(nullptr, 0, width, height, 1, subsample).blocks;
}

extern "C" size_t gi_cuda_jpeg_enc_scan_bytes(long long blocks)
{
    size_t bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, bytes, (unsigned long long *)nullptr,
                                  (unsigned long long *)nullptr, blocks + 1);
    return bytes;
}

extern "C" cudaError_t gi_cuda_jpeg_enc_count(const uint8_t *src, size_t pitch, int width,
                                              int height, int channels, int subsample,
                                              const gi_cuda_jpeg_enc_tables *tables,
                                              int16_t *coef, unsigned long long *counts,
                                              unsigned long long *offsets, void *scan_temp,
                                              size_t scan_temp_bytes, cudaStream_t stream)
{
    const frame f = make_frame(src, pitch, width, height, channels, subsample);
    encode_transform<<<grid_for(f.blocks), THREADS, 0, stream>>>(f, tables, coef);
    encode_count<<<grid_for(f.blocks + 1), THREADS, 0, stream>>>(f, tables, coef, counts);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    e = cub::DeviceScan::ExclusiveSum(scan_temp, scan_temp_bytes, counts, offsets, f.blocks + 1,
                                      stream);
    return e != cudaSuccess ? e : cudaGetLastError();
}

extern "C" cudaError_t gi_cuda_jpeg_enc_emit(int width, int height, int subsample,
                                             const gi_cuda_jpeg_enc_tables *tables,
                                             const int16_t *coef,
                                             const unsigned long long *offsets, uint32_t *words,
                                             size_t nwords, cudaStream_t stream)
{
    const frame f = make_frame(nullptr, 0, width, height, 1, subsample);
    encode_emit<<<grid_for(f.blocks), THREADS, 0, stream>>>(f, tables, coef, offsets, words);
    encode_bytes<<<grid_for((long long)nwords), THREADS, 0, stream>>>(words, nwords);
    return cudaGetLastError();
}
