package tkbench;

/** java.lang.Math operations with data-dependent branches (JGF Math style). */
public final class MathOps {
    static double run(int n) {
        double acc = 0;
        Bench.Rng r = new Bench.Rng(42);
        for (int i = 0; i < n; i++) {
            double x = r.nextDouble() * 10 - 5;
            switch (i % 8) {
                case 0: acc += Math.abs(x); break;
                case 1: acc += Math.max(x, 0.5); break;
                case 2: acc += Math.min(x, -0.5); break;
                case 3: acc += x > 0 ? Math.log(x) : Math.exp(x); break;
                case 4: acc += Math.sqrt(Math.abs(x)); break;
                case 5: acc += Math.floor(x) + Math.ceil(x); break;
                case 6: acc += Math.sin(x) * Math.cos(x); break;
                default: acc += Math.round(x) % 3; break;
            }
            if (acc > 1e9) acc = 0;
        }
        return acc;
    }

    public static void main(String[] args) {
        Bench.report("Math", run(Bench.size(args, 20000) * 3));
    }
}
