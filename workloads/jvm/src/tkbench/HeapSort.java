package tkbench;

/** In-place heap sort of pseudo-random integers. */
public final class HeapSort {
    static void siftDown(int[] a, int i, int n) {
        while (true) {
            int l = 2 * i + 1;
            if (l >= n) return;
            int c = (l + 1 < n && a[l + 1] > a[l]) ? l + 1 : l;
            if (a[i] >= a[c]) return;
            int t = a[i]; a[i] = a[c]; a[c] = t;
            i = c;
        }
    }

    static void sort(int[] a) {
        int n = a.length;
        for (int i = n / 2 - 1; i >= 0; i--) siftDown(a, i, n);
        for (int end = n - 1; end > 0; end--) {
            int t = a[0]; a[0] = a[end]; a[end] = t;
            siftDown(a, 0, end);
        }
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000) / 4;
        Bench.Rng r = new Bench.Rng(3);
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = r.nextInt(1 << 20);
        sort(a);
        long check = 0;
        for (int i = 1; i < n; i++) { if (a[i - 1] > a[i]) throw new AssertionError("unsorted"); check += a[i] % 7; }
        Bench.report("HeapSort", check);
    }
}
