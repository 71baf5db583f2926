package tracekit.rt;

/**
 * Ball-Larus path numbering: r accumulates edge increments; a back edge (or a
 * DAG-split edge) emits r plus its increment and restarts r; EXIT emits r.
 */
final class BlppInv extends Inv {
    private final long[][] inc;
    private final long[][] reset;
    private final int[][] succ;
    private final int exit;
    private long r;
    private final LongList ids = new LongList();

    BlppInv(ThreadState ts, int method, Tables t) {
        super(ts, method);
        inc = t.blppInc[method];
        reset = t.blppReset[method];
        succ = t.succ[method];
        exit = t.exitNode(method);
    }

    @Override
    void edge(int from, int to) {
        int[] s = succ[from];
        int i = 0;
        while (s[i] != to) i++;
        long rs = reset[from][i];
        if (rs == -1) {
            r += inc[from][i];
        } else {
            ids.add(r + inc[from][i]);
            r = rs;
        }
        if (to == exit) ids.add(r);
    }

    @Override
    void emitTo(RecordLog log) {
        for (int i = 0; i < ids.size; i++) log.value(ids.values[i]);
    }
}
