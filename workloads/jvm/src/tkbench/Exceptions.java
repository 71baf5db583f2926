package tkbench;

/** Throwing and catching exceptions, locally and through several frames. */
public final class Exceptions {
    static final class Oops extends Exception { final int code; Oops(int code) { super(null, null, false, false); this.code = code; } }

    static int local(int n) {
        int caught = 0;
        for (int i = 0; i < n; i++) {
            try {
                if (i % 4 == 0) throw new Oops(i);
                caught += 0;
            } catch (Oops e) {
                caught += e.code & 1;
                caught++;
            }
        }
        return caught;
    }

    static void deep(int d, int i) throws Oops {
        if (d == 0) { if (i % 3 == 0) throw new Oops(i); return; }
        deep(d - 1, i);
    }

    static int unwinding(int n) {
        int caught = 0;
        for (int i = 0; i < n; i++) {
            try { deep(i % 5, i); } catch (Oops e) { caught++; } finally { caught += 2; }
        }
        return caught;
    }

    static int runtime(int n) {
        int[] a = new int[10];
        int c = 0;
        for (int i = 0; i < n; i++) {
            try { a[i % 12] = i; } catch (ArrayIndexOutOfBoundsException e) { c++; }
        }
        return c;
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000);
        long sum = 0;
        for (int rep = 0; rep < 2; rep++) sum += local(n) + unwinding(n / 4) + runtime(n / 4);
        Bench.report("Exception", sum);
    }
}
