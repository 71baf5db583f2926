package tkbench;

/** Primitive conversions and reference casts. */
public final class Cast {
    interface Shape { double area(); }
    static final class Sq implements Shape { final double s; Sq(double s) { this.s = s; } public double area() { return s * s; } }
    static final class Circ implements Shape { final double r; Circ(double r) { this.r = r; } public double area() { return 3.14159 * r * r; } }

    static long primitives(int n) {
        long acc = 0;
        for (int i = 0; i < n; i++) {
            double d = i * 1.5;
            float f = (float) d;
            long l = (long) f;
            acc += (int) l + (short) i + (byte) i + (char) i;
        }
        return acc;
    }

    static double references(Object[] objs) {
        double a = 0;
        for (Object o : objs) {
            if (o instanceof Sq) a += ((Sq) o).s;
            else if (o instanceof Circ) a += ((Circ) o).r;
            a += ((Shape) o).area();
        }
        return a;
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000);
        Object[] objs = new Object[256];
        for (int i = 0; i < objs.length; i++) objs[i] = i % 3 == 0 ? new Circ(i) : new Sq(i);
        double sum = 0;
        for (int rep = 0; rep < 5; rep++) sum += primitives(n);
        for (int rep = 0; rep < n / 256; rep++) sum += references(objs);
        Bench.report("Cast", sum);
    }
}
