/* Two phases that draw different currents: the program itself writes the
   fixture battery's current_now (argv[1]) as it enters each phase, so the
   energy the power sampler sees follows the functions that ran. */
#include <stdio.h>
#include <time.h>

static const char *current_file;

static void set_current(const char *ua) {
    FILE *f = fopen(current_file, "w");
    if (f) { fputs(ua, f); fclose(f); }
}

static void spin(long ms) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do { clock_gettime(CLOCK_MONOTONIC, &b); }
    while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void light_work(void) { set_current("500000\n"); spin(300); }
static void heavy_work(void) { set_current("1500000\n"); spin(300); }

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    current_file = argv[1];
    light_work();
    heavy_work();
    set_current("0\n");
    return 0;
}
