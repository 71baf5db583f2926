package tkbench;

/** Iterative radix-2 complex FFT, forward then inverse. */
public final class FFT {
    static void transform(double[] re, double[] im, boolean inverse) {
        int n = re.length;
        for (int i = 1, j = 0; i < n; i++) {
            int bit = n >> 1;
            for (; (j & bit) != 0; bit >>= 1) j ^= bit;
            j ^= bit;
            if (i < j) { double t = re[i]; re[i] = re[j]; re[j] = t; t = im[i]; im[i] = im[j]; im[j] = t; }
        }
        for (int len = 2; len <= n; len <<= 1) {
            double ang = 2 * Math.PI / len * (inverse ? 1 : -1);
            double wr = Math.cos(ang), wi = Math.sin(ang);
            for (int i = 0; i < n; i += len) {
                double cr = 1, ci = 0;
                for (int k = 0; k < len / 2; k++) {
                    int a = i + k, b = i + k + len / 2;
                    double xr = re[b] * cr - im[b] * ci, xi = re[b] * ci + im[b] * cr;
                    re[b] = re[a] - xr; im[b] = im[a] - xi;
                    re[a] += xr; im[a] += xi;
                    double t = cr * wr - ci * wi; ci = cr * wi + ci * wr; cr = t;
                }
            }
        }
        if (inverse) for (int i = 0; i < n; i++) { re[i] /= n; im[i] /= n; }
    }

    public static void main(String[] args) {
        int n = Integer.highestOneBit(Math.max(16, Bench.size(args, 20000) / 10));
        Bench.Rng r = new Bench.Rng(5);
        double[] re = new double[n], im = new double[n], orig = new double[n];
        for (int i = 0; i < n; i++) orig[i] = re[i] = r.nextDouble();
        transform(re, im, false);
        transform(re, im, true);
        double err = 0;
        for (int i = 0; i < n; i++) err += Math.abs(re[i] - orig[i]);
        Bench.report("FFT", err < 1e-6 ? n : -1);
    }
}
