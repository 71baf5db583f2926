// Shared helpers of the tkbench suite: a clean-room Java benchmark suite
// modelled on the sections of the Java Grande Forum benchmarks (written fresh
// for tracekit; no JGF code). Every program takes an optional size argument
// and prints a checksum so runs can be compared.
package tkbench;

public final class Bench {
    private Bench() {}

    /** The size argument, or the default. */
    public static int size(String[] args, int dflt) {
        return args.length > 0 ? Integer.parseInt(args[0]) : dflt;
    }

    /** A small deterministic pseudo-random generator (xorshift). */
    public static final class Rng {
        private long s;
        public Rng(long seed) { s = seed == 0 ? 0x9E3779B97F4A7C15L : seed; }
        public long next() { s ^= s << 13; s ^= s >>> 7; s ^= s << 17; return s; }
        public int nextInt(int bound) { return (int) Long.remainderUnsigned(next(), bound); }
        public double nextDouble() { return (next() >>> 11) * 0x1.0p-53; }
    }

    public static void report(String name, double checksum) {
        System.out.println(name + " " + checksum);
    }
}
