package tkbench;

/** Integer, long, float and double arithmetic in tight loops (JGF section 1 style). */
public final class Arith {
    static int addInts(int n) {
        int a = 1, b = 2, c = 3, d = 4;
        for (int i = 0; i < n; i++) { a += b; b += c; c += d; d += a; }
        return a + b + c + d;
    }

    static long mulLongs(int n) {
        long a = 3, b = 5;
        for (int i = 0; i < n; i++) { a *= b; b = (b * 7) | 1; if ((a & 1) == 0) a++; }
        return a ^ b;
    }

    static double divDoubles(int n) {
        double x = 1e6, y = 1.000001;
        for (int i = 0; i < n; i++) { x /= y; if (x < 1) x = 1e6; }
        return x;
    }

    static float mixFloats(int n) {
        float f = 0.5f;
        for (int i = 0; i < n; i++) f = f * 1.0001f + (i % 3 == 0 ? 0.25f : -0.125f);
        return f;
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000);
        double sum = 0;
        for (int rep = 0; rep < 5; rep++) sum += addInts(n) + mulLongs(n) + divDoubles(n) + mixFloats(n);
        Bench.report("Arith", sum);
    }
}
