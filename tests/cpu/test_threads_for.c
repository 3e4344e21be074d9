/* gi__cpu_threads_for (lib/cpu/cpu_backend.h): a small image's operation
 * takes one thread, a large one's every thread of the context, and the
 * count between grows with the bytes and the cost; with
 * GPUIMG_TEST_SPLIT_SMALL=1 (the second run of this test) every image takes
 * every thread. */
#include <stdlib.h>

#include "harness.h"
#include "cpu/cpu_backend.h"

static gi_image sized(int w, int h, int ch, int depth)
{
    return (gi_image){.width = w, .height = h, .channels = ch, .stride = (size_t)w * ch,
                      .data = NULL, .depth = depth};
}

int main(void)
{
    const char *split = getenv("GPUIMG_TEST_SPLIT_SMALL");
    const int split_small = split && split[0] == '1';
    void *state;
    th_check(gi__cpu_state_create(8, &state) == GI_OK, "state: %s", gi_last_error());
    const gi_image tiny = sized(32, 32, 3, 8), thumb = sized(256, 256, 3, 8),
                   photo = sized(3840, 2400, 3, 8), mid = sized(384, 384, 3, 8),
                   mid16 = sized(384, 384, 3, 16), row = sized(200000, 1, 4, 8);
    const int tiny_n = gi__cpu_threads_for(state, &tiny, &tiny, 1);
    const int thumb_n = gi__cpu_threads_for(state, &thumb, &thumb, 1);
    const int photo_n = gi__cpu_threads_for(state, &photo, &photo, 1);
    const int mid_n = gi__cpu_threads_for(state, &mid, &mid, 1);
    const int mid_heavy = gi__cpu_threads_for(state, &mid, &mid, 4);
    const int mid16_n = gi__cpu_threads_for(state, &mid16, &mid16, 1);
    const int hist_n = gi__cpu_threads_for(state, &thumb, NULL, 1);
    const int row_n = gi__cpu_threads_for(state, &row, &row, 1);
    if (split_small) {
        th_check(tiny_n == 8 && thumb_n == 8 && hist_n == 8 && mid_n == 8,
                 "split: %d %d %d %d threads, want 8", tiny_n, thumb_n, hist_n, mid_n);
    } else {
        /* 32x32 and 256x256 RGB: 6 KB and 393 KB in and out, one thread */
        th_check(tiny_n == 1 && thumb_n == 1 && hist_n == 1,
                 "small: %d %d %d threads, want 1", tiny_n, thumb_n, hist_n);
        /* 384x384 RGB: 885 KB, 3 threads; 4 times the cost, all 8 */
        th_check(mid_n == 3 && mid_heavy == 8, "384x384: %d and %d threads, want 3 and 8", mid_n,
                 mid_heavy);
        /* twice the bytes a sample: 6 */
        th_check(mid16_n == 6, "384x384 16-bit: %d threads, want 6", mid16_n);
        /* one row of 1.6 MB in and out: more threads than rows (a band each) */
        th_check(row_n == 6, "200000x1 RGBA: %d threads, want 6", row_n);
    }
    th_check(photo_n == 8, "3840x2400 RGB: %d threads, want 8", photo_n);
    gi__cpu_state_destroy(state);
    return th_finish();
}
