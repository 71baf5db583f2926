/* Deterministic pseudo-random numbers shared by the kernels (and by the
 * JNI library built from the same sources, workloads/emu/jni). */
#include "kernels.h"

uint32_t suite_rand(uint32_t *state) {
    /* xorshift32 */
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

double suite_rand_unit(uint32_t *state) {
    return (suite_rand(state) >> 8) * (1.0 / 16777216.0);
}
