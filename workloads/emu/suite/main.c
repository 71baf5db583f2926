/* Driver: `suite KERNEL [SCALE]`, KERNEL one of fft lu sor mc sparse crypto
 * compress all. Prints one checksum line per kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"

static int run(const char *name, int scale) {
    int all = strcmp(name, "all") == 0;
    int ran = 0;
    if (all || !strcmp(name, "fft")) { printf("fft %.6f\n", kernel_fft(scale)); ran = 1; }
    if (all || !strcmp(name, "lu")) { printf("lu %.6f\n", kernel_lu(scale)); ran = 1; }
    if (all || !strcmp(name, "sor")) { printf("sor %.6f\n", kernel_sor(scale)); ran = 1; }
    if (all || !strcmp(name, "mc")) { printf("mc %.6f\n", kernel_monte_carlo(scale)); ran = 1; }
    if (all || !strcmp(name, "sparse")) { printf("sparse %.6f\n", kernel_sparse(scale)); ran = 1; }
    if (all || !strcmp(name, "crypto")) { printf("crypto %08x\n", (unsigned)kernel_crypto(scale)); ran = 1; }
    if (all || !strcmp(name, "compress")) { printf("compress %08x\n", (unsigned)kernel_compress(scale)); ran = 1; }
    return ran;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s fft|lu|sor|mc|sparse|crypto|compress|all [scale]\n", argv[0]);
        return 2;
    }
    int scale = argc > 2 ? atoi(argv[2]) : 1;
    if (scale < 1) scale = 1;
    if (!run(argv[1], scale)) {
        fprintf(stderr, "unknown kernel %s\n", argv[1]);
        return 2;
    }
    return 0;
}
