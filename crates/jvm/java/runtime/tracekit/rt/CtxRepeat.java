package tracekit.rt;

/**
 * The context stream's first decision for every invocation: is it the one
 * the thread's history predicts? On a hit the invocation costs one flag and
 * none of {@link CtxModel}'s work (no walk of its digits, no method id, end
 * or choices), which is what lets the coder thread keep up with a program
 * that repeats itself. Mirrors tracekit_paths::repeat bit for bit (all int
 * arithmetic wraps like the Rust u32 code).
 *
 * An invocation's key is its method and its choice digits as the probes
 * keep them; only one that ended normally with no spilled word (every digit
 * in its state word) is repeatable.
 */
final class CtxRepeat {
    private static final int RING_BITS = 16;
    private static final int RING = 1 << RING_BITS;
    private static final int TABLE_BITS = 16;
    private static final int BUCKETS = 16;
    private static final int FLAG_INC = 32;
    private static final int FLAG_BOUND = 65535;
    private static final int REPEATABLE = 1 << 31;

    /** Per ring slot: method + 1, with REPEATABLE for a repeatable invocation (0: empty). */
    private final int[] ringMethod = new int[RING];
    private final long[] ringDigits = new long[RING];
    /** Per context: position + 1 of the invocation that followed it (0: none). */
    private final int[] table = new int[1 << TABLE_BITS];
    private int count, h1, h2, h3;
    /** The predicted position while a match is on (valid when {@code matching}), and its length. */
    private int ptr, len;
    private boolean matching;
    private final int[] flags = filled(2 * BUCKETS);

    private static int[] filled(int n) {
        int[] a = new int[n];
        java.util.Arrays.fill(a, 1);
        return a;
    }

    private int context() {
        return ((h1 ^ Integer.rotateLeft(h2, 13) ^ Integer.rotateLeft(h3, 26)) * 0x9E3779B1) >>> (32 - TABLE_BITS);
    }

    private static int hash(int method, long digits, boolean repeatable) {
        int h = (method + 1) * 0xC2B2AE35 ^ (int) digits * 0x9E3779B1 ^ (int) (digits >>> 32) * 0x85EBCA6B;
        return repeatable ? h : h ^ 0x27D4EB2F;
    }

    /**
     * Codes whether the invocation (method {@code m}, {@code digits}) is the
     * predicted one; true on a hit (then recorded already). On false the
     * caller codes it with {@link CtxModel} and then calls {@link #record}.
     */
    boolean hit(Coder coder, int m, boolean repeatable, long digits) {
        if (!matching) {
            int e = table[context()];
            if (e != 0) {
                int p = e - 1;
                if ((count - p - 1) >>> RING_BITS == 0) {
                    ptr = p;
                    len = 0;
                    matching = true;
                }
            }
            if (!matching) return false;
        }
        int p = ptr;
        int entry = ringMethod[p & (RING - 1)];
        if ((entry & REPEATABLE) == 0) return false;
        int b = Math.min(32 - Integer.numberOfLeadingZeros(len), BUCKETS - 1);
        int f0 = flags[2 * b], f1 = flags[2 * b + 1];
        if (repeatable && (entry & ~REPEATABLE) == m + 1 && ringDigits[p & (RING - 1)] == digits) {
            coder.encodeFirst(f0, (long) f0 + f1);
            if (f0 + FLAG_INC > FLAG_BOUND) halve(b);
            flags[2 * b] += FLAG_INC;
            push(m, true, digits);
            ptr = p + 1;
            if (len != Integer.MAX_VALUE) len++;
            return true;
        }
        coder.encode(f0, f1, (long) f0 + f1);
        if (f1 + FLAG_INC > FLAG_BOUND) halve(b);
        flags[2 * b + 1] += FLAG_INC;
        matching = false;
        return false;
    }

    private void halve(int b) {
        flags[2 * b] = Math.max(1, flags[2 * b] >>> 1);
        flags[2 * b + 1] = Math.max(1, flags[2 * b + 1] >>> 1);
    }

    /** Records an invocation {@link CtxModel} coded (after a miss or with no prediction). */
    void record(int m, boolean repeatable, long digits) {
        boolean goingOn = matching && !repeatable && ringMethod[ptr & (RING - 1)] == m + 1;
        push(m, repeatable, digits);
        if (goingOn) {
            ptr++;
            if (len != Integer.MAX_VALUE) len++;
        } else {
            matching = false;
        }
    }

    private void push(int m, boolean repeatable, long digits) {
        table[context()] = count + 1;
        int slot = count & (RING - 1);
        ringMethod[slot] = (m + 1) | (repeatable ? REPEATABLE : 0);
        ringDigits[slot] = digits;
        h3 = h2;
        h2 = h1;
        h1 = hash(m, digits, repeatable);
        count++;
    }
}
