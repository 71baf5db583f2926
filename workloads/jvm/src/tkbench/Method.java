package tkbench;

/** Static, instance, virtual, interface and recursive calls. */
public final class Method {
    interface Op { int apply(int x); }
    static class Base implements Op { public int apply(int x) { return x + 1; } }
    static final class Twice extends Base { @Override public int apply(int x) { return super.apply(x) * 2; } }
    static final class Neg extends Base { @Override public int apply(int x) { return -x; } }

    static int sstatic(int x) { return x ^ 5; }
    int inst(int x) { return x + field; }
    int field = 3;

    static int ack(int m, int n) {
        if (m == 0) return n + 1;
        if (n == 0) return ack(m - 1, 1);
        return ack(m - 1, ack(m, n - 1));
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000);
        Op[] ops = { new Base(), new Twice(), new Neg() };
        Method m = new Method();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += sstatic(i) + m.inst(i);
            sum += ops[i % 3].apply(i);
        }
        sum += ack(2, 3 + (n > 10000 ? 3 : 0));
        Bench.report("Method", sum);
    }
}
