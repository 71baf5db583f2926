package tracekit.rt;

/**
 * The core crate's 32-bit low/high arithmetic coder (Witten-Neal-Cleary with
 * pending bits) writing width-bit words most significant bit first, with
 * AdapTracer's counter update. Mirrors tracekit_paths::arith and adaptive
 * bit for bit. One Coder per invocation, or one per thread in stream mode.
 */
final class Coder {
    private static final long TOP = 0xFFFFFFFFL;
    private static final long HALF = 1L << 31;
    private static final long QUARTER = 1L << 30;
    private static final long MAX_TOTAL = 1L << 20;

    private final int width;
    private final int inc;
    private final long bound;
    private long low;
    private long high = TOP;
    private long pending;
    private long acc;
    private int filled;
    final LongList words = new LongList();

    Coder(Tables t) {
        width = t.width;
        inc = t.inc;
        bound = t.bound;
    }

    /** Codes symbol {@code sym} of the {@code k} counters at {@code c[b..b+k)}, then updates them. */
    void code(int[] c, int b, int k, int sym) {
        long total = 0, cum = 0;
        for (int i = 0; i < k; i++) {
            if (i == sym) cum = total;
            total += c[b + i];
        }
        encode(cum, c[b + sym], total);
        if (c[b + sym] + (long) inc > bound || total + inc > MAX_TOTAL) {
            for (int i = 0; i < k; i++) c[b + i] = Math.max(1, c[b + i] >>> 1);
        }
        c[b + sym] += inc;
    }

    /** Codes the symbol [cum, cum + freq) of total (the core's Encoder::encode). */
    void encode(long cum, long freq, long total) {
        long range = high - low + 1;
        high = low + range * (cum + freq) / total - 1;
        if (cum != 0) low = low + range * cum / total;
        renormalise();
    }

    /**
     * Shifts out the settled bits of low and high, each followed by the
     * pending ones. One output site (emit), so the JIT inlines little here.
     */
    private void renormalise() {
        while (true) {
            if (high < HALF || low >= HALF) {
                // All the top bits low and high share are settled (the
                // core shifts them out one at a time, with the same bits):
                // the first is high's top bit, followed by the pending
                // ones; the rest go out together.
                int s = Math.min(Long.numberOfLeadingZeros((low ^ high) << 32), 32);
                emit(high >>> 31);
                if (s > 1) putBits((high >>> (32 - s)) & ((1L << (s - 1)) - 1), s - 1);
                low = (low << s) & TOP;
                high = ((high << s) & TOP) | ((1L << s) - 1);
            } else if (low >= QUARTER && high < HALF + QUARTER) {
                pending++;
                low = (low - QUARTER) << 1;
                high = ((high - QUARTER) << 1) | 1;
            } else {
                break;
            }
        }
    }

    /** Writes {@code bit}, then the pending bits (its opposite). */
    private void emit(long bit) {
        putBits(bit, 1);
        while (pending > 0) {
            int k = (int) Math.min(pending, 31);
            putBits(bit == 0 ? (1L << k) - 1 : 0, k);
            pending -= k;
        }
    }

    /** Writes the low {@code n} bits of {@code v} (1 ≤ n ≤ 31, v < 2^n), most significant first. */
    private void putBits(long v, int n) {
        int room = width - filled;
        while (n >= room) {
            n -= room;
            acc = (acc << room) | (v >>> n);
            v &= (1L << n) - 1;
            words.add(acc);
            acc = 0;
            filled = 0;
            room = width;
        }
        acc = (acc << n) | v;
        filled += n;
    }

    /**
     * {@link #encode}(0, freq, total): the first symbol, as a flag's "as
     * guessed" (low stays; the renormalisation runs only when it can shift).
     */
    void encodeFirst(long freq, long total) {
        high = low + (high - low + 1) * freq / total - 1;
        if (high < HALF || low >= QUARTER) renormalise();
    }

    /** Back to the start state with no words (to code the next invocation with the same object). */
    void reset() {
        low = 0;
        high = TOP;
        pending = 0;
        acc = 0;
        filled = 0;
        words.size = 0;
    }

    /** Final flush: one 1 bit if needed, pad the last word, drop trailing zero words. */
    void finish() {
        if (low > 0 || pending > 0) putBits(1, 1);
        if (filled > 0) {
            words.add(acc << (width - filled));
            acc = 0;
            filled = 0;
        }
        while (words.size > 0 && words.values[words.size - 1] == 0) words.size--;
    }
}
