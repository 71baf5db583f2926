package tkbench;

/** Fourier coefficients of f(x) = (x+1)^x on [0,2] by trapezoid integration. */
public final class Series {
    static double integrate(int k, boolean cosine, int steps) {
        double h = 2.0 / steps, sum = 0;
        double omega = Math.PI * k;
        for (int i = 0; i <= steps; i++) {
            double x = i * h;
            double f = Math.pow(x + 1, x);
            double w = k == 0 ? 1 : (cosine ? Math.cos(omega * x) : Math.sin(omega * x));
            double term = f * w;
            if (i == 0 || i == steps) term *= 0.5;
            sum += term;
        }
        return sum * h;
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000) / 400;
        double acc = 0;
        for (int k = 0; k < n; k++) {
            acc += integrate(k, true, 200);
            if (k > 0) acc += integrate(k, false, 200);
        }
        Bench.report("Series", acc);
    }
}
