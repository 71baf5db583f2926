package tkbench;

/**
 * Methods of one basic block (getters, setters, relays), which the path
 * probes give their short form: returning normally, throwing themselves,
 * letting an exception pass through, and constructors that throw after
 * their super() call.
 */
public final class OneBlock {
    static final class Oops extends Exception { Oops() { super(null, null, false, false); } }

    static final class Box {
        final int v;
        Box(int[] a, int i) { super(); v = a[i]; }
        int get() { return v; }
    }

    private int field;

    int field() { return field; }
    void setField(int v) { field = v; }

    static int element(int[] a, int i) { return a[i]; }
    static void fail() throws Oops { throw new Oops(); }
    static void relay() throws Oops { fail(); }
    static int sum(int a, int b) { return a + b; }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000);
        int[] a = new int[10];
        OneBlock o = new OneBlock();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            o.setField(sum(o.field(), i & 7));
            try {
                sum += element(a, i % 12);
            } catch (ArrayIndexOutOfBoundsException e) {
                sum += 3;
            }
            try {
                sum += new Box(a, i % 11).get();
            } catch (ArrayIndexOutOfBoundsException e) {
                sum += 5;
            }
            if (i % 5 == 0) {
                try {
                    relay();
                } catch (Oops e) {
                    sum += 7;
                }
            }
        }
        Bench.report("OneBlock", sum + o.field());
    }
}
