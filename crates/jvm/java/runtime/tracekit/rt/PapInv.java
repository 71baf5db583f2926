package tracekit.rt;

/**
 * PAP: on an edge into a node with k > 1 in-edges, r = r * k + index. When
 * that would exceed the width, the breakpoint (r, source node) is recorded
 * and r restarts from the edge's index.
 */
final class PapInv extends Inv {
    private final int[] radix;
    private final int[][] index;
    private final int[][] succ;
    private final int exit;
    private final long max;
    private long r;
    private final LongList vals = new LongList();
    private final LongList nodes = new LongList();

    PapInv(ThreadState ts, int method, Tables t) {
        super(ts, method);
        radix = t.papRadix[method];
        index = t.papIndex[method];
        succ = t.succ[method];
        exit = t.exitNode(method);
        max = t.maxValue;
    }

    @Override
    void edge(int from, int to) {
        int k = radix[to];
        if (k > 1) {
            int[] s = succ[from];
            int i = 0;
            while (s[i] != to) i++;
            int idx = index[from][i];
            if (Long.compareUnsigned(r, Long.divideUnsigned(max - idx, k)) > 0) {
                vals.add(r);
                nodes.add(from);
                r = idx;
            } else {
                r = r * k + idx;
            }
        }
        if (to == exit) {
            vals.add(r);
            nodes.add(-1);
        }
    }

    @Override
    void emitTo(RecordLog log) {
        for (int i = 0; i < vals.size; i++) {
            log.value(vals.values[i]);
            if (nodes.values[i] >= 0) log.breakpoint((int) nodes.values[i]);
        }
    }
}
