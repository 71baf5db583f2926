package tkbench;

import java.util.ArrayList;

/** Object and array creation. */
public final class Create {
    static final class Node { final int v; Node next; Node(int v, Node next) { this.v = v; this.next = next; } }
    static final class Wide { long a, b, c, d; Object o; }

    static int lists(int n) {
        Node head = null;
        for (int i = 0; i < n; i++) head = new Node(i, (i % 64 == 0) ? null : head);
        int c = 0;
        for (Node p = head; p != null; p = p.next) c++;
        return c;
    }

    static long arrays(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            int[] a = new int[(i & 31) + 1];
            a[a.length - 1] = i;
            s += a.length;
            if (i % 100 == 0) s += new double[8][4].length;
        }
        return s;
    }

    static int collections(int n) {
        ArrayList<Object> l = new ArrayList<>();
        for (int i = 0; i < n; i++) { l.add(i % 2 == 0 ? new Wide() : "s" + (i % 10)); if (l.size() > 1000) l.clear(); }
        return l.size();
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000);
        long sum = 0;
        for (int rep = 0; rep < 3; rep++) sum += lists(n) + arrays(n) + collections(n);
        Bench.report("Create", sum);
    }
}
