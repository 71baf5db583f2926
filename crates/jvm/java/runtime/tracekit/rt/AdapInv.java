package tracekit.rt;

/**
 * AdapTracer: each choice at a node with several out-edges is coded under the
 * node's adaptive counters with the core crate's 32-bit low/high arithmetic
 * coder (Witten-Neal-Cleary with pending bits); the output bits are packed
 * most significant first into width-bit PathID words, trailing zero words
 * dropped. Mirrors tracekit_paths::arith and adaptive bit for bit.
 */
final class AdapInv extends Inv {
    private static final long TOP = 0xFFFFFFFFL;
    private static final long HALF = 1L << 31;
    private static final long QUARTER = 1L << 30;
    private static final long MAX_TOTAL = 1L << 20;

    private final int[] base;
    private final int[][] succ;
    private final int exit;
    private final int inc;
    private final long bound;
    private final int width;
    private int[] counts;
    private long low;
    private long high = TOP;
    private long pending;
    private long acc;
    private int filled;
    private final LongList words = new LongList();

    AdapInv(ThreadState ts, int method, Tables t) {
        super(ts, method);
        base = t.adapBase[method];
        succ = t.succ[method];
        exit = t.exitNode(method);
        inc = t.inc;
        bound = t.bound;
        width = t.width;
    }

    private int[] counts() {
        if (counts == null) {
            int[] init = thread.tables.adapInit[method];
            if (nested) {
                counts = init.clone();
            } else {
                int[] shared = thread.counters[method];
                if (shared == null) thread.counters[method] = shared = init.clone();
                counts = shared;
            }
        }
        return counts;
    }

    private void put(long bit) {
        acc = (acc << 1) | bit;
        if (++filled == width) {
            words.add(acc);
            acc = 0;
            filled = 0;
        }
    }

    private void putRun(long bit, long n) {
        for (long i = 0; i < n; i++) put(bit);
    }

    @Override
    void edge(int from, int to) {
        int b = base[from];
        if (b >= 0) {
            int[] s = succ[from];
            int[] c = counts();
            int k = s.length;
            long total = 0, cum = 0;
            int sym = -1;
            for (int i = 0; i < k; i++) {
                if (s[i] == to) { sym = i; cum = total; }
                total += c[b + i];
            }
            long freq = c[b + sym];
            long range = high - low + 1;
            high = low + range * (cum + freq) / total - 1;
            low = low + range * cum / total;
            while (true) {
                if (high < HALF) {
                    put(0);
                    putRun(1, pending);
                    pending = 0;
                } else if (low >= HALF) {
                    put(1);
                    putRun(0, pending);
                    pending = 0;
                    low -= HALF;
                    high -= HALF;
                } else if (low >= QUARTER && high < HALF + QUARTER) {
                    pending++;
                    low -= QUARTER;
                    high -= QUARTER;
                } else {
                    break;
                }
                low <<= 1;
                high = (high << 1) | 1;
            }
            if (c[b + sym] + (long) inc > bound || total + inc > MAX_TOTAL) {
                for (int i = 0; i < k; i++) c[b + i] = Math.max(1, c[b + i] >>> 1);
            }
            c[b + sym] += inc;
        }
        if (to == exit) finish();
    }

    private void finish() {
        if (low > 0 || pending > 0) put(1);
        if (filled > 0) {
            words.add(acc << (width - filled));
            acc = 0;
            filled = 0;
        }
        while (words.size > 0 && words.values[words.size - 1] == 0) words.size--;
    }

    @Override
    void emitTo(RecordLog log) {
        for (int i = 0; i < words.size; i++) log.value(words.values[i]);
    }
}
