// Exercises every control-flow shape the JVM frontend models: loops,
// if/else, tableswitch, lookupswitch, try/catch/finally, exceptions that
// unwind several frames, recursion, threads, and System.exit.
public class Shapes {
    static int sum;

    static int classify(int x) {
        switch (x % 5) {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            case 3: return 13;
            default: return 14;
        }
    }

    static int sparse(int x) {
        switch (x * 37 % 1000) {
            case 7: return 1;
            case 500: return 2;
            case 999: return 3;
            default: return 0;
        }
    }

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static void thrower(int depth) {
        if (depth == 0) throw new IllegalStateException("deep");
        thrower(depth - 1);
    }

    static int guarded(int i) {
        int r = 0;
        try {
            if (i % 3 == 0) thrower(2);
            r = 100 / (i % 4);
        } catch (ArithmeticException e) {
            r = -1;
        } catch (IllegalStateException e) {
            r = -2;
        } finally {
            sum += r;
        }
        return r;
    }

    static long loops(int n) {
        long acc = 0;
        outer:
        for (int i = 0; i < n; i++) {
            int j = 0;
            while (j < i) {
                if ((i ^ j) % 7 == 0) continue outer;
                acc += i * j;
                j++;
            }
            do { acc--; } while (acc % 3 != 0 && acc > 0);
        }
        return acc;
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        for (int i = 0; i < n; i++) {
            sum += classify(i) + sparse(i) + guarded(i);
        }
        sum += fib(12) + (int) loops(n);
        Thread t = new Thread(() -> { for (int i = 0; i < n; i++) sum += classify(i * 7); }, "worker");
        t.start();
        t.join();
        System.out.println("sum " + sum);
        if (args.length > 1 && args[1].equals("exit")) System.exit(0);
        if (args.length > 1 && args[1].equals("throw")) thrower(3);
    }
}
