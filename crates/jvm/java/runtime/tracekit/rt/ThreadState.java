package tracekit.rt;

/**
 * One thread: the raw-record buffer its probes fill (owned by the thread),
 * and the coding state the coder thread keeps for it (touched only there).
 */
final class ThreadState {
    static final int MIN_BUFFER = 1 << 8;
    /**
     * Longs in a full buffer: 128 KiB, so a buffer the coder takes over is
     * still in the shared cache, and full buffers go round (Sink.spare)
     * rather than being made and zeroed afresh.
     */
    static final int MAX_BUFFER = 1 << 14;

    final int index;
    final Thread thread;
    final long javaId;
    final String name;

    /** Raw records: see Rt (written by the thread, handed over whole). */
    long[] buf = new long[MIN_BUFFER];
    int pos;

    // ---- coder-thread state ----
    /** The program's tables (set by {@link #attach} before the coder first codes this thread's records). */
    Tables tables;
    /** Per method: this thread's adaptive edge counters (AdapTracer), made on first use. */
    int[][] counters;
    /** The block being written: record bits (or method references in stream mode). */
    final BitOut block = new BitOut();
    /** Records (invocations) in the current block. */
    int blockCount;
    /** Stream and context modes: the thread's coder (restarted per block). */
    Coder coder;
    /** Context stream: the thread's model. */
    CtxModel context;
    /** Verification sidecar of the current block. */
    final BitOut sidecar = new BitOut();
    /** True once the thread's THREAD chunk is written. */
    boolean announced;
    /** Set when the coder found a record it cannot code; later records are dropped. */
    boolean broken;

    /** A thread's state, made on its first probe (it needs no tables: the probes only fill the buffer). */
    ThreadState(int index, Thread thread) {
        this.index = index;
        this.thread = thread;
        this.javaId = thread.getId();
        this.name = thread.getName();
    }

    /** Coder thread: gives this thread's coding state the program's tables (once). */
    ThreadState attach(Tables tables) {
        if (this.tables == null) {
            this.tables = tables;
            this.counters = new int[tables.methodCount()][];
        }
        return this;
    }

    /** A buffer with room for {@code need} more longs (hands the full one over). */
    long[] room(int need) {
        if (pos + need <= buf.length) return buf;
        return makeRoom(need);
    }

    /**
     * The rare half of {@link #room}, a method of its own: too big for the
     * JIT to inline at a cold call site, so its branches (growing, handing
     * over, finding no spare buffer) cannot deoptimise the program's
     * compiled methods, into which room is inlined.
     */
    private long[] makeRoom(int need) {
        if (pos > 0 && buf.length >= MAX_BUFFER) handOff(false);
        int size = buf.length;
        while (size < pos + need) size *= 2;
        if (size > buf.length) buf = java.util.Arrays.copyOf(buf, size);
        return buf;
    }

    /** Gives the filled part of the buffer to the coder thread and starts a fresh one. */
    synchronized void handOff(boolean last) {
        if (pos > 0) {
            Rt.SINK.submit(this, buf, pos);
            long[] spare = last ? null : Rt.SINK.spare(Math.min(buf.length, MAX_BUFFER));
            buf = spare != null ? spare : new long[last ? MIN_BUFFER : Math.max(MIN_BUFFER, Math.min(buf.length, MAX_BUFFER))];
            pos = 0;
        }
    }

    /** This thread's adaptive counters of {@code method}, made from the shipped model on first use. */
    int[] methodCounters(int method) {
        int[] c = counters[method];
        if (c == null) counters[method] = c = tables.adapInit[method].clone();
        return c;
    }
}
