package tkbench.emu;

/**
 * The emulator suite's kernels (workloads/emu/suite: FFT, LU, SOR, Monte
 * Carlo, sparse mat-vec, ARX cipher) for the JVM, in two forms that print the
 * same checksum lines as the C suite:
 * <ul>
 * <li>{@code java}: the kernel written in Java, a line-for-line port of the C code;</li>
 * <li>{@code jni}: the same C code compiled into a JNI library
 *     ({@code libtkkernels.so}, loaded from {@code -Dtkkernels.lib=PATH}),
 *     one native call per kernel run.</li>
 * </ul>
 * Usage: {@code Kernels KERNEL java|jni [SCALE]}, KERNEL one of
 * fft lu sor mc sparse crypto.
 */
public final class Kernels {
    private Kernels() {}

    static native double fftNative(int scale);
    static native double luNative(int scale);
    static native double sorNative(int scale);
    static native double monteCarloNative(int scale);
    static native double sparseNative(int scale);
    static native int cryptoNative(int scale);

    /** xorshift32, as suite_rand in the C suite. */
    static int rand(int[] state) {
        int x = state[0];
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        state[0] = x;
        return x;
    }

    static double randUnit(int[] state) {
        return (rand(state) >>> 8) * (1.0 / 16777216.0);
    }

    static void fftTransform(double[] data, int n, int sign) {
        for (int i = 0, j = 0; i < n; i++) {
            if (i < j) {
                double tr = data[2 * i], ti = data[2 * i + 1];
                data[2 * i] = data[2 * j];
                data[2 * i + 1] = data[2 * j + 1];
                data[2 * j] = tr;
                data[2 * j + 1] = ti;
            }
            int bit = n >> 1;
            while (bit >= 1 && (j & bit) != 0) { j ^= bit; bit >>= 1; }
            j |= bit;
        }
        for (int len = 2; len <= n; len <<= 1) {
            double theta = sign * 2.0 * Math.PI / len;
            double wr = Math.cos(theta), wi = Math.sin(theta);
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

    static double fft(int scale) {
        final int n = 256;
        double[] data = new double[2 * n];
        int[] seed = { 7 };
        for (int i = 0; i < 2 * n; i++) data[i] = randUnit(seed);
        for (int r = 0; r < 4 * scale; r++) {
            fftTransform(data, n, -1);
            fftTransform(data, n, 1);
            for (int i = 0; i < 2 * n; i++) data[i] /= n;
        }
        double sum = 0;
        for (int i = 0; i < 2 * n; i++) sum += data[i];
        return sum;
    }

    static double lu(int scale) {
        final int n = 24;
        double[][] a = new double[n][n];
        int[] pivot = new int[n];
        double check = 0;
        for (int r = 0; r < 2 * scale; r++) {
            int[] seed = { 11 + r };
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) a[i][j] = randUnit(seed) + (i == j ? n : 0);
            for (int k = 0; k < n; k++) {
                int p = k;
                double best = Math.abs(a[k][k]);
                for (int i = k + 1; i < n; i++)
                    if (Math.abs(a[i][k]) > best) { best = Math.abs(a[i][k]); p = i; }
                pivot[k] = p;
                if (p != k)
                    for (int j = 0; j < n; j++) { double t = a[k][j]; a[k][j] = a[p][j]; a[p][j] = t; }
                for (int i = k + 1; i < n; i++) {
                    double f = a[i][k] / a[k][k];
                    a[i][k] = f;
                    for (int j = k + 1; j < n; j++) a[i][j] -= f * a[k][j];
                }
            }
            for (int k = 0; k < n; k++) check += a[k][k] + pivot[k];
        }
        return check;
    }

    static double sor(int scale) {
        final int n = 32;
        double[][] g = new double[n][n];
        int[] seed = { 3 };
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) g[i][j] = randUnit(seed);
        final double omega = 1.25;
        for (int it = 0; it < 6 * scale; it++)
            for (int i = 1; i < n - 1; i++)
                for (int j = 1; j < n - 1; j++)
                    g[i][j] = omega * 0.25 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1])
                            + (1.0 - omega) * g[i][j];
        double sum = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) sum += g[i][j];
        return sum;
    }

    static double monteCarlo(int scale) {
        int[] seed = { 12345 };
        int inside = 0, samples = 4000 * scale;
        for (int i = 0; i < samples; i++) {
            double x = randUnit(seed), y = randUnit(seed);
            if (x * x + y * y <= 1.0) inside++;
        }
        return 4.0 * inside / samples;
    }

    static double sparse(int scale) {
        final int n = 200, perRow = 5, nz = n * perRow;
        double[] val = new double[nz], x = new double[n], y = new double[n];
        int[] col = new int[nz], row = new int[n + 1];
        int[] seed = { 99 };
        for (int i = 0; i < n; i++) {
            row[i] = i * perRow;
            for (int k = 0; k < perRow; k++) {
                col[i * perRow + k] = Integer.remainderUnsigned(rand(seed), n);
                val[i * perRow + k] = randUnit(seed);
            }
            x[i] = randUnit(seed);
        }
        row[n] = nz;
        for (int r = 0; r < 10 * scale; r++)
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int k = row[i]; k < row[i + 1]; k++) s += val[k] * x[col[k]];
                y[i] = s;
            }
        double sum = 0;
        for (int i = 0; i < n; i++) sum += y[i];
        return sum;
    }

    static int crypto(int scale) {
        final int rounds = 27, words = 512;
        int[] keys = new int[rounds], buf = new int[words];
        int[] seed = { 0xC0FFEE };
        for (int i = 0; i < rounds; i++) keys[i] = rand(seed);
        for (int i = 0; i < words; i++) buf[i] = rand(seed);
        int sum = 0;
        for (int r = 0; r < 2 * scale; r++)
            for (int i = 0; i < words; i += 2) {
                int x = i, y = r;
                for (int k = 0; k < rounds; k++) {
                    x = (Integer.rotateRight(x, 8) + y) ^ keys[k];
                    y = Integer.rotateLeft(y, 3) ^ x;
                }
                buf[i] ^= x;
                buf[i + 1] ^= y;
                sum = Integer.rotateLeft(sum, 5) ^ buf[i] ^ (buf[i + 1] * (int) 2654435761L);
            }
        return sum;
    }

    public static void main(String[] args) {
        if (args.length < 2 || !(args[1].equals("java") || args[1].equals("jni"))) {
            System.err.println("usage: Kernels fft|lu|sor|mc|sparse|crypto java|jni [scale]");
            System.exit(2);
        }
        boolean jni = args[1].equals("jni");
        int scale = args.length > 2 ? Math.max(1, Integer.parseInt(args[2])) : 1;
        if (jni) {
            String lib = System.getProperty("tkkernels.lib");
            if (lib != null) System.load(lib); else System.loadLibrary("tkkernels");
        }
        String k = args[0];
        switch (k) {
            case "fft" -> System.out.printf("fft %.6f%n", jni ? fftNative(scale) : fft(scale));
            case "lu" -> System.out.printf("lu %.6f%n", jni ? luNative(scale) : lu(scale));
            case "sor" -> System.out.printf("sor %.6f%n", jni ? sorNative(scale) : sor(scale));
            case "mc" -> System.out.printf("mc %.6f%n", jni ? monteCarloNative(scale) : monteCarlo(scale));
            case "sparse" -> System.out.printf("sparse %.6f%n", jni ? sparseNative(scale) : sparse(scale));
            case "crypto" -> System.out.printf("crypto %08x%n", jni ? cryptoNative(scale) : crypto(scale));
            default -> { System.err.println("unknown kernel " + k); System.exit(2); }
        }
    }
}
