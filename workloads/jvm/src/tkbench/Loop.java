package tkbench;

/** For, while and do loops, nested and with early exits. */
public final class Loop {
    static long forLoops(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) for (int j = 0; j < 8; j++) s += i ^ j;
        return s;
    }

    static long whileLoops(int n) {
        long s = 0;
        int i = 0;
        while (i < n) { int j = i; while (j > 0 && (j & 1) == 0) { j >>= 1; s++; } i++; }
        return s;
    }

    static long doLoops(int n) {
        long s = 0;
        int i = n;
        do { s += i % 7; i--; if (i % 1000 == 999) continue; s++; } while (i > 0);
        return s;
    }

    static int search(int[] a, int key) {
        for (int i = 0; i < a.length; i++) if (a[i] == key) return i;
        return -1;
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000);
        int[] a = new int[64];
        for (int i = 0; i < a.length; i++) a[i] = i * 3;
        long sum = forLoops(n / 2) + whileLoops(n) + doLoops(n);
        for (int k = 0; k < n / 16; k++) sum += search(a, (k * 7) % 200);
        Bench.report("Loop", sum);
    }
}
