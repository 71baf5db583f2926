package tracekit.rt;

/**
 * One program thread's side of the runtime: the raw-record buffer its probes
 * fill. Only that thread writes these fields. The coder thread keeps its own
 * state for the thread ({@link ThreadState}) in objects it makes itself, so
 * the two threads never write to the same cache line once per record (when
 * they did, the line went back and forth between the cores on every
 * invocation).
 */
final class ThreadBuffer {
    static final int MIN_BUFFER = 1 << 8;
    /**
     * Longs in a full buffer: 128 KiB, so a buffer the coder takes over is
     * still in the shared cache, and full buffers go round (Sink.spare)
     * rather than being made and zeroed afresh.
     */
    static final int MAX_BUFFER = 1 << 14;

    final int index;
    final Thread thread;
    /** The thread's id and its name at its first probe (what the log's THREAD chunk says). */
    final long javaId;
    final String name;

    /** Raw records: see Rt (written by the thread, handed over whole). */
    long[] buf = new long[MIN_BUFFER];
    int pos;

    /** A thread's buffer, made on its first probe. */
    ThreadBuffer(int index, Thread thread) {
        this.index = index;
        this.thread = thread;
        this.javaId = thread.getId();
        this.name = thread.getName();
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
}
