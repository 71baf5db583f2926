// tracekit path-profiling runtime: what instrumented methods call.
//
// The probes keep an invocation's path state in the method's own locals
// (BLPP's and PAP's path register, or AdapTracer's choices packed as digits)
// and call this class only when the invocation ends (exit, or abort from the
// method's catch-all handler) and when a local word is full (spill: a BLPP
// back edge, a PAP breakpoint, 64 bits of choice digits). exit/abort append
// one raw record to the thread's buffer; full buffers go to the coder thread
// (Sink), which codes them under the scheme into the binary log, so the
// program's own threads never run the coders. The log is written as the
// program runs; a shutdown hook hands over every thread's last records and
// closes it (normal exit, System.exit and uncaught exceptions alike).
// Invocations still running when the JVM exits (the callers of System.exit,
// daemon threads) are not recorded: their state lives in their frames.
package tracekit.rt;

import java.util.ArrayList;

public final class Rt {
    static final ArrayList<ThreadBuffer> THREADS = new ArrayList<>();
    static final ThreadLocal<ThreadBuffer> CURRENT = new ThreadLocal<>();
    /** The thread buffer last looked up: one compare instead of a ThreadLocal lookup on single-threaded stretches. */
    static ThreadBuffer last;
    /** The coder thread (it loads the tables itself: the program's first probe does not wait for them). */
    static final Sink SINK = Sink.open();

    /**
     * Record kinds (bits 56.. of a record's first long). STRAIGHT is a
     * normal end of a method with one path: state 0, no spilled words, the
     * record is its first long alone.
     */
    static final long NORMAL = 0, ABORTED = 1L << 56, VERIFY = 2L << 56, STRAIGHT = 3L << 56;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Rt::close, "tracekit-paths-log"));
    }

    private Rt() {}

    static ThreadBuffer current() {
        Thread t = Thread.currentThread();
        ThreadBuffer s = last;
        if (s != null && s.thread == t) return s;
        return lookup(t);
    }

    private static ThreadBuffer lookup(Thread t) {
        ThreadBuffer s = CURRENT.get();
        if (s == null) {
            synchronized (THREADS) {
                s = new ThreadBuffer(THREADS.size(), t);
                THREADS.add(s);
            }
            CURRENT.set(s);
        }
        last = s;
        return s;
    }

    /** Stores {@code v} at {@code a[n]}, growing (or making) the array; returns it. */
    public static long[] spill(long[] a, int n, long v) {
        if (a == null) a = new long[8];
        else if (n == a.length) a = java.util.Arrays.copyOf(a, n * 2);
        a[n] = v;
        return a;
    }

    /** Verification probes: stores block {@code node} at {@code a[n]}, growing the array. */
    public static int[] node(int[] a, int n, int node) {
        if (a == null) a = new int[16];
        else if (n == a.length) a = java.util.Arrays.copyOf(a, n * 2);
        a[n] = node;
        return a;
    }

    /**
     * Normal end of an invocation of {@code method}: {@code n} spilled words,
     * then the final state. Inlined at every return of every probed method,
     * so it is kept small: the common case (the thread seen last, no spilled
     * words, room in the buffer) is a few loads and two stores; the rest is
     * {@link #exitSlow}.
     */
    public static void exit(int method, long state, long[] spill, int n) {
        ThreadBuffer ts = last;
        if (n == 0 && ts != null && ts.thread == Thread.currentThread()) {
            long[] b = ts.buf;
            int p = ts.pos;
            if (p + 2 <= b.length) {
                b[p] = method;
                b[p + 1] = state;
                ts.pos = p + 2;
                return;
            }
        }
        exitSlow(method, state, spill, n);
    }

    /**
     * Normal end of an invocation of a method with one block and no edge
     * work (a getter, a setter): its path is the method itself. The probes
     * of such a method are this call and {@link #abort0}, small enough that
     * the JIT compilers still inline the method where they inlined it
     * uninstrumented.
     */
    public static void exit0(int method) {
        ThreadBuffer ts = last;
        if (ts != null && ts.thread == Thread.currentThread()) {
            long[] b = ts.buf;
            int p = ts.pos;
            if (p < b.length) {
                b[p] = method | STRAIGHT;
                ts.pos = p + 1;
                return;
            }
        }
        ts = current();
        long[] b = ts.room(1);
        b[ts.pos++] = method | STRAIGHT;
    }

    /** An invocation of a one-block method (see {@link #exit0}) ended by an exception. */
    public static void abort0(int method) {
        abort(method, 0, 0, null, 0, 1);
    }

    private static void exitSlow(int method, long state, long[] spill, int n) {
        ThreadBuffer ts = current();
        long[] b = ts.room(n + 2);
        int p = ts.pos;
        b[p] = method | ((long) n << 32);
        if (n > 0) System.arraycopy(spill, 0, b, p + 1, n);
        b[p + n + 1] = state;
        ts.pos = p + n + 2;
    }

    /**
     * An invocation ended by an exception in block {@code cur} (called from
     * the method's catch-all handler, which rethrows): {@code sh} is the
     * digit shift of AdapTracer's state word.
     */
    public static void abort(int method, long state, int sh, long[] spill, int n, int cur) {
        ThreadBuffer ts = current();
        long[] b = ts.room(n + 3);
        int p = ts.pos;
        b[p] = method | ((long) n << 32) | ABORTED;
        if (n > 0) System.arraycopy(spill, 0, b, p + 1, n);
        b[p + n + 1] = state;
        b[p + n + 2] = (sh & 0xFFFFFFFFL) | ((long) cur << 32);
        ts.pos = p + n + 3;
    }

    /** Verification sidecar: the blocks an invocation reached, recorded just before its exit or abort. */
    public static void verify(int method, int[] nodes, int n) {
        ThreadBuffer ts = current();
        int words = (n + 1) / 2;
        long[] b = ts.room(words + 1);
        int p = ts.pos;
        b[p] = method | ((long) n << 32) | VERIFY;
        for (int i = 0; i < n; i++) {
            int k = p + 1 + i / 2;
            long v = nodes[i] & 0xFFFFFFFFL;
            b[k] = (i & 1) == 0 ? v : b[k] | (v << 32);
        }
        ts.pos = p + 1 + words;
    }

    private static final int[] FIRST_BLOCK = {1};

    /** Verification sidecar of a one-block method (see {@link #exit0}): it reached its block. */
    public static void verify1(int method) {
        verify(method, FIRST_BLOCK, 1);
    }

    /** Shutdown: every thread's last records to the coder, then the log is finished. */
    static void close() {
        ArrayList<ThreadBuffer> threads;
        synchronized (THREADS) {
            threads = new ArrayList<>(THREADS);
        }
        for (ThreadBuffer ts : threads) ts.handOff(true);
        SINK.finish(threads);
    }
}
