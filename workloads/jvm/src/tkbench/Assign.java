package tkbench;

/** Assignments to locals, statics, instance fields and array elements. */
public final class Assign {
    static int s1, s2;
    int f1, f2;
    final int[] arr = new int[16];

    void instance(int n) {
        for (int i = 0; i < n; i++) { f1 = f2; f2 = i; arr[i & 15] = f1; }
    }

    static void statics(int n) {
        for (int i = 0; i < n; i++) { s1 = s2; s2 = i; }
    }

    static int locals(int n) {
        int a = 0, b = 1, c = 2;
        for (int i = 0; i < n; i++) { a = b; b = c; c = i; }
        return a + b + c;
    }

    public static void main(String[] args) {
        int n = Bench.size(args, 20000);
        Assign x = new Assign();
        long sum = 0;
        for (int rep = 0; rep < 5; rep++) {
            x.instance(n);
            statics(n);
            sum += locals(n) + x.f1 + s1 + x.arr[3];
        }
        Bench.report("Assign", sum);
    }
}
