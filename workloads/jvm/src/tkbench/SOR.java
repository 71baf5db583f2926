package tkbench;

/** Successive over-relaxation on a 2-D grid. */
public final class SOR {
    static double relax(double[][] g, double omega, int iters) {
        int n = g.length;
        for (int it = 0; it < iters; it++) {
            for (int i = 1; i < n - 1; i++) {
                double[] up = g[i - 1], row = g[i], down = g[i + 1];
                for (int j = 1; j < n - 1; j++) {
                    row[j] = omega * 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1]) + (1 - omega) * row[j];
                }
            }
        }
        double s = 0;
        for (double[] row : g) for (double v : row) s += v;
        return s;
    }

    public static void main(String[] args) {
        int n = Math.max(8, (int) Math.sqrt(Bench.size(args, 20000) / 2.0));
        Bench.Rng r = new Bench.Rng(9);
        double[][] g = new double[n][n];
        for (double[] row : g) for (int j = 0; j < n; j++) row[j] = r.nextDouble();
        Bench.report("SOR", relax(g, 1.25, 10));
    }
}
