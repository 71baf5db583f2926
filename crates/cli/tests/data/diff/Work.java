// A deterministic program whose path frequencies depend on its argument:
// two runs with one argument agree exactly, another argument changes them.
public class Work {
    static int step(int i) {
        if (i % 3 == 0) return i / 3;
        if (i % 2 == 0) return i + 1;
        return i * 2;
    }

    static long loop(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += step(i);
        }
        return s;
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        System.out.println(loop(n));
    }
}
