/* tracekit emulator benchmark suite: kernel entry points.
 * Each kernel takes a scale (>= 1) and returns a checksum that main prints,
 * so the compiler cannot drop the work and runs can be compared. */
#ifndef TRACEKIT_SUITE_KERNELS_H
#define TRACEKIT_SUITE_KERNELS_H
#include <stdint.h>

double kernel_fft(int scale);
double kernel_lu(int scale);
double kernel_sor(int scale);
double kernel_monte_carlo(int scale);
double kernel_sparse(int scale);
uint32_t kernel_crypto(int scale);
uint32_t kernel_compress(int scale);

/* Deterministic pseudo-random numbers shared by the kernels. */
uint32_t suite_rand(uint32_t *state);
double suite_rand_unit(uint32_t *state);
#endif
