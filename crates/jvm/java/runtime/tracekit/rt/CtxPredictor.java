package tracekit.rt;

/**
 * The context stream's history predictors: a match model over the thread's
 * event history and an order-K table, in fixed int arrays. Mirrors
 * tracekit_paths::predictor bit for bit (all int arithmetic wraps like the
 * Rust u32 code; comparisons that are unsigned there are unsigned here).
 */
final class CtxPredictor {
    static final int RING = 1 << 18;
    static final int MATCH_MIN = 20;
    static final int ORDER_K = 6;
    static final int TABLE_BITS = 16;
    static final int END_CODE_MAX = (1 << 26) - 1;
    private static final int B = 0x01000193;
    private static final int GOLDEN = 0x9E3779B1;
    private static final int KEY_MUL = 0x85EBCA6B;
    private static final int LEN_CAP = 1 << 30;
    /** Matches at least this long leave the order-K table alone (neither read nor trained). */
    static final int LONG_MATCH = 1024;
    private static final int POW_M = pow(B, MATCH_MIN);
    private static final int POW_K = pow(B, ORDER_K);

    /** Slot kinds: a choice (with lo, k), a method id, an end. */
    static final int CHOICE = 0, METHOD = 1, END = 2;

    /** The history ring, and the match state; package-private for CtxModel's inlined choice fast path. */
    final int[] hist = new int[RING];
    int ptr, len;
    private int n, hm, hk;
    private final int[] mtable = new int[1 << TABLE_BITS];
    final int[] ktable = new int[1 << TABLE_BITS];

    /** Candidates of the last {@link #candidates} call (up to 4 with the method tables). */
    final int[] events = new int[4];
    final int[] buckets = new int[4];
    int count;

    private static int pow(int b, int e) {
        int r = 1;
        for (int i = 0; i < e; i++) r *= b;
        return r;
    }

    /** Unsigned {@code n >= small} for a small positive bound. */
    private static boolean atLeast(int n, int small) {
        return n >= small || n < 0;
    }

    private int at(int pos) {
        return hist[pos & (RING - 1)];
    }

    private static int key(int kind, int lo) {
        return kind == CHOICE ? lo << 2 : kind;
    }

    static boolean holds(int kind, int lo, int k, int ev) {
        switch (kind) {
            case CHOICE: {
                // ev >>> 2 and lo are below 2^27: the unsigned test of the core is d in [0, k).
                int d = (ev >>> 2) - lo;
                return (ev & 3) == 0 && d >= 0 && d < k;
            }
            case METHOD: return (ev & 3) == 1;
            default: return (ev & 3) == 2 && (ev >>> 2) < END_CODE_MAX;
        }
    }

    int kindex(int kind, int lo) {
        return ((hk ^ key(kind, lo) * KEY_MUL) * GOLDEN) >>> 16;
    }

    /** Table entry update, see tracekit_paths::predictor::table_update. */
    static int tableUpdate(int entry, int ev) {
        if (entry == 0 || ((entry & 3) == 0 && (entry >>> 2) - 1 != ev)) return (ev + 1) << 2;
        if ((entry >>> 2) - 1 == ev) return ((ev + 1) << 2) | Math.min((entry & 3) + 1, 3);
        return entry - 1;
    }

    void push(int ev, int bucket) {
        events[count] = ev;
        buckets[count] = bucket;
        count++;
    }

    /** Index into the order-K table of the slot last asked for (reused by {@link #record}). */
    int lastKindex;

    /** Fills {@link #events}/{@link #buckets} with the predictions for the slot. */
    void candidates(int kind, int lo, int k) {
        count = 0;
        int entry = 0;
        if (len < LONG_MATCH) {
            lastKindex = kindex(kind, lo);
            entry = ktable[lastKindex];
        }
        boolean hasTable = entry != 0 && holds(kind, lo, k, (entry >>> 2) - 1);
        int tev = hasTable ? (entry >>> 2) - 1 : 0;
        int conf = entry & 3;
        if (len > 0 && holds(kind, lo, k, at(ptr))) {
            int ev = at(ptr);
            int lb = Math.min(31 - Integer.numberOfLeadingZeros(len >>> 4), 7);
            int agree = !hasTable ? 0 : tev != ev ? 1 : 2;
            push(ev, 3 * lb + agree);
            if (hasTable && tev != ev) push(tev, 28 + conf);
        } else if (hasTable) {
            push(tev, 24 + conf);
        }
    }

    /**
     * The fast path of {@link #candidates}: when the match model's next
     * event is {@code actual} (which must hold for the slot), that event is
     * the first candidate and its flag the only one coded; returns its
     * bucket, or -1 (then call {@link #candidates}). Either way the slot is
     * set up for {@link #record}.
     */
    int matchBucket(int kind, int lo, int k, int actual) {
        int l = len;
        if (l == 0 || hist[ptr & (RING - 1)] != actual) return -1;
        int agree = 0;
        if (l < LONG_MATCH) {
            int ki = kindex(kind, lo);
            lastKindex = ki;
            int entry = ktable[ki];
            if (entry != 0 && holds(kind, lo, k, (entry >>> 2) - 1)) agree = (entry >>> 2) - 1 != actual ? 1 : 2;
        }
        // A match is at least MATCH_MIN >= 16 events long, so the log is >= 0.
        return 3 * Math.min(31 - Integer.numberOfLeadingZeros(l >>> 4), 7) + agree;
    }

    /** Records that {@code ev} was coded for the slot of the last {@link #candidates} call. */
    void record(int ev) {
        if (len < LONG_MATCH) ktable[lastKindex] = tableUpdate(ktable[lastKindex], ev);
        if (len > 0) {
            if (at(ptr) == ev) {
                ptr++;
                len = Math.min(len + 1, LEN_CAP);
            } else {
                len = 0;
            }
        }
        append(ev);
    }

    /** {@link #record} of an event the match model predicted (len > 0 and at(ptr) == ev). */
    void recordHit(int ev) {
        if (len < LONG_MATCH) ktable[lastKindex] = tableUpdate(ktable[lastKindex], ev);
        ptr++;
        len = Math.min(len + 1, LEN_CAP);
        append(ev);
    }

    /** Appends ev to the history: the rolling hashes, the match table (and a new match when none runs). */
    private void append(int ev) {
        // Fields in locals: this runs for every event, often before the JIT's optimising tier.
        int[] h = hist;
        int m = n;
        int outM = atLeast(m, MATCH_MIN) ? h[(m - MATCH_MIN) & (RING - 1)] : 0;
        int outK = atLeast(m, ORDER_K) ? h[(m - ORDER_K) & (RING - 1)] : 0;
        h[m & (RING - 1)] = ev;
        int hashM = hm * B + ev - outM * POW_M;
        hm = hashM;
        hk = hk * B + ev - outK * POW_K;
        n = ++m;
        if (atLeast(m, MATCH_MIN)) {
            int i = (hashM * GOLDEN) >>> 16;
            if (len == 0) acquire(mtable[i]);
            mtable[i] = m;
        }
    }

    /** Starts a match at {@code cand} (a position from the match table) if the last events agree. */
    private void acquire(int cand) {
        int d = n - cand;
        if (cand != 0 && d > 0 && d < RING - 64) {
            int[] h = hist;
            int a = cand - 1, b = n - 1, l = 0;
            while (l < 32 && h[(a - l) & (RING - 1)] == h[(b - l) & (RING - 1)]) l++;
            if (l >= MATCH_MIN) {
                len = l;
                ptr = cand;
            }
        }
    }
}
