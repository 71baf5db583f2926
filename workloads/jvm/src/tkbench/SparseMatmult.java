package tkbench;

/** Sparse matrix (compressed rows) times dense vector, repeated. */
public final class SparseMatmult {
    public static void main(String[] args) {
        int n = Math.max(16, Bench.size(args, 20000) / 20);
        int nnz = n * 5;
        Bench.Rng r = new Bench.Rng(13);
        int[] rowStart = new int[n + 1];
        int[] col = new int[nnz];
        double[] val = new double[nnz];
        for (int i = 0, k = 0; i < n; i++) {
            rowStart[i] = k;
            int per = nnz / n;
            for (int e = 0; e < per; e++, k++) { col[k] = r.nextInt(n); val[k] = r.nextDouble(); }
            rowStart[i + 1] = k;
        }
        double[] x = new double[n], y = new double[n];
        for (int i = 0; i < n; i++) x[i] = r.nextDouble();
        for (int rep = 0; rep < 10; rep++) {
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int k = rowStart[i]; k < rowStart[i + 1]; k++) s += val[k] * x[col[k]];
                y[i] = s;
            }
            double[] t = x; x = y; y = t;
            double norm = 0;
            for (double v : x) norm = Math.max(norm, Math.abs(v));
            if (norm > 0) for (int i = 0; i < n; i++) x[i] /= norm;
        }
        double s = 0;
        for (double v : x) s += v;
        Bench.report("SparseMatmult", s);
    }
}
