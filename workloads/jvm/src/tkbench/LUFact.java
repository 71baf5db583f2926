package tkbench;

/** LU factorisation with partial pivoting, then a solve (Linpack style). */
public final class LUFact {
    static int factor(double[][] a, int[] piv) {
        int n = a.length;
        for (int k = 0; k < n - 1; k++) {
            int p = k;
            double max = Math.abs(a[k][k]);
            for (int i = k + 1; i < n; i++) {
                double v = Math.abs(a[i][k]);
                if (v > max) { max = v; p = i; }
            }
            piv[k] = p;
            if (max == 0) return k;
            if (p != k) { double[] t = a[p]; a[p] = a[k]; a[k] = t; }
            for (int i = k + 1; i < n; i++) {
                double m = a[i][k] / a[k][k];
                a[i][k] = m;
                for (int j = k + 1; j < n; j++) a[i][j] -= m * a[k][j];
            }
        }
        piv[n - 1] = n - 1;
        return -1;
    }

    static void solve(double[][] lu, int[] piv, double[] b) {
        int n = lu.length;
        for (int k = 0; k < n - 1; k++) {
            int p = piv[k];
            if (p != k) { double t = b[p]; b[p] = b[k]; b[k] = t; }
            for (int i = k + 1; i < n; i++) b[i] -= lu[i][k] * b[k];
        }
        for (int i = n - 1; i >= 0; i--) {
            double s = b[i];
            for (int j = i + 1; j < n; j++) s -= lu[i][j] * b[j];
            b[i] = s / lu[i][i];
        }
    }

    public static void main(String[] args) {
        int n = Math.max(8, (int) Math.cbrt(Bench.size(args, 20000) * 5.0));
        Bench.Rng r = new Bench.Rng(7);
        double[][] a = new double[n][n];
        double[] b = new double[n];
        for (int i = 0; i < n; i++) { b[i] = r.nextDouble(); for (int j = 0; j < n; j++) a[i][j] = r.nextDouble() - 0.5; }
        int[] piv = new int[n];
        factor(a, piv);
        solve(a, piv, b);
        double s = 0;
        for (double x : b) s += x;
        Bench.report("LUFact", s);
    }
}
