/* SciMark-like numeric kernels, written for this suite: FFT, LU, SOR,
 * Monte Carlo and sparse matrix-vector multiply. Sizes are small so a run
 * under an emulator takes a fraction of a second at scale 1. */
#include <math.h>
#include <stdlib.h>
#include "kernels.h"

/* In-place radix-2 complex FFT on interleaved (re, im) pairs. */
static void fft_transform(double *data, int n, int sign) {
    for (int i = 0, j = 0; i < n; i++) {
        if (i < j) {
            double tr = data[2 * i], ti = data[2 * i + 1];
            data[2 * i] = data[2 * j];
            data[2 * i + 1] = data[2 * j + 1];
            data[2 * j] = tr;
            data[2 * j + 1] = ti;
        }
        int bit = n >> 1;
        while (bit >= 1 && (j & bit)) { j ^= bit; bit >>= 1; }
        j |= bit;
    }
    for (int len = 2; len <= n; len <<= 1) {
        double theta = sign * 2.0 * M_PI / len;
        double wr = cos(theta), wi = sin(theta);
        for (int start = 0; start < n; start += len) {
            double cr = 1.0, ci = 0.0;
            for (int k = 0; k < len / 2; k++) {
                int a = start + k, b = a + len / 2;
                double xr = data[2 * b] * cr - data[2 * b + 1] * ci;
                double xi = data[2 * b] * ci + data[2 * b + 1] * cr;
                data[2 * b] = data[2 * a] - xr;
                data[2 * b + 1] = data[2 * a + 1] - xi;
                data[2 * a] += xr;
                data[2 * a + 1] += xi;
                double t = cr * wr - ci * wi;
                ci = cr * wi + ci * wr;
                cr = t;
            }
        }
    }
}

double kernel_fft(int scale) {
    enum { N = 256 };
    static double data[2 * N];
    uint32_t seed = 7;
    for (int i = 0; i < 2 * N; i++) data[i] = suite_rand_unit(&seed);
    for (int r = 0; r < 4 * scale; r++) {
        fft_transform(data, N, -1);
        fft_transform(data, N, 1);
        for (int i = 0; i < 2 * N; i++) data[i] /= N;
    }
    double sum = 0;
    for (int i = 0; i < 2 * N; i++) sum += data[i];
    return sum;
}

double kernel_lu(int scale) {
    enum { N = 24 };
    static double a[N][N];
    static int pivot[N];
    double check = 0;
    for (int r = 0; r < 2 * scale; r++) {
        uint32_t seed = 11 + r;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) a[i][j] = suite_rand_unit(&seed) + (i == j ? N : 0);
        for (int k = 0; k < N; k++) {
            int p = k;
            double best = fabs(a[k][k]);
            for (int i = k + 1; i < N; i++)
                if (fabs(a[i][k]) > best) { best = fabs(a[i][k]); p = i; }
            pivot[k] = p;
            if (p != k)
                for (int j = 0; j < N; j++) { double t = a[k][j]; a[k][j] = a[p][j]; a[p][j] = t; }
            for (int i = k + 1; i < N; i++) {
                double f = a[i][k] / a[k][k];
                a[i][k] = f;
                for (int j = k + 1; j < N; j++) a[i][j] -= f * a[k][j];
            }
        }
        for (int k = 0; k < N; k++) check += a[k][k] + pivot[k];
    }
    return check;
}

double kernel_sor(int scale) {
    enum { N = 32 };
    static double g[N][N];
    uint32_t seed = 3;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) g[i][j] = suite_rand_unit(&seed);
    const double omega = 1.25;
    for (int it = 0; it < 6 * scale; it++)
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                g[i][j] = omega * 0.25 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1])
                        + (1.0 - omega) * g[i][j];
    double sum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) sum += g[i][j];
    return sum;
}

double kernel_monte_carlo(int scale) {
    uint32_t seed = 12345;
    int inside = 0, samples = 4000 * scale;
    for (int i = 0; i < samples; i++) {
        double x = suite_rand_unit(&seed), y = suite_rand_unit(&seed);
        if (x * x + y * y <= 1.0) inside++;
    }
    return 4.0 * inside / samples;
}

double kernel_sparse(int scale) {
    enum { N = 200, PER_ROW = 5, NZ = N * PER_ROW };
    static double val[NZ], x[N], y[N];
    static int col[NZ], row[N + 1];
    uint32_t seed = 99;
    for (int i = 0; i < N; i++) {
        row[i] = i * PER_ROW;
        for (int k = 0; k < PER_ROW; k++) {
            col[i * PER_ROW + k] = (int)(suite_rand(&seed) % N);
            val[i * PER_ROW + k] = suite_rand_unit(&seed);
        }
        x[i] = suite_rand_unit(&seed);
    }
    row[N] = NZ;
    for (int r = 0; r < 10 * scale; r++)
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int k = row[i]; k < row[i + 1]; k++) s += val[k] * x[col[k]];
            y[i] = s;
        }
    double sum = 0;
    for (int i = 0; i < N; i++) sum += y[i];
    return sum;
}
