package tracekit.rt;

/** The path state of one method invocation; one subclass per scheme. */
public abstract class Inv {
    final int method;
    final ThreadState thread;
    /** True when another invocation of the same method was live on this thread at entry (recursion). */
    final boolean nested;
    /** Last node reached (starts at ENTRY). */
    int prev;
    /** Number of nodes reached after ENTRY. */
    int length;

    Inv(ThreadState thread, int method) {
        this.thread = thread;
        this.method = method;
        this.nested = thread.live[method] > 0;
        this.prev = thread.tables.entry[method];
    }

    static Inv create(Tables t, ThreadState ts, int method) {
        switch (t.schemeId) {
            case Tables.RAW: return new RawInv(ts, method);
            case Tables.BLPP: return new BlppInv(ts, method, t);
            case Tables.PAP: return new PapInv(ts, method, t);
            default: return new AdapInv(ts, method, t);
        }
    }

    /** Takes the edge from {@link #prev} to {@code node}. */
    final void step(int node) {
        edge(prev, node);
        prev = node;
        length++;
    }

    abstract void edge(int from, int to);

    /** Appends the finished trace values to the thread's log. */
    abstract void emitTo(RecordLog log);
}
