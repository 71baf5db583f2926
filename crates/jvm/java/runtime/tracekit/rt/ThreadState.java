package tracekit.rt;

/**
 * The coder thread's state for one program thread: its coding state and the
 * block being written. Made and touched only by the coder thread (the
 * program thread's side is {@link ThreadBuffer}).
 */
final class ThreadState {
    final int index;
    final long javaId;
    final String name;

    /** The program's tables. */
    final Tables tables;
    /** Per method: this thread's adaptive edge counters (AdapTracer), made on first use. */
    final int[][] counters;
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

    /** The coding state of the thread whose buffer is {@code from}, under the program's tables. */
    ThreadState(ThreadBuffer from, Tables tables) {
        this.index = from.index;
        this.javaId = from.javaId;
        this.name = from.name;
        this.tables = tables;
        this.counters = new int[tables.methodCount()][];
    }

    /** This thread's adaptive counters of {@code method}, made from the shipped model on first use. */
    int[] methodCounters(int method) {
        int[] c = counters[method];
        if (c == null) counters[method] = c = tables.adapInit[method].clone();
        return c;
    }
}
