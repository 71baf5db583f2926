package tracekit.rt;

/**
 * AdapTracer: each choice at a node with several out-edges is coded with an
 * integer interval coder under the node's adaptive counters; the coder's low
 * end L is flushed as a PathID when the interval gets too narrow, and at EXIT.
 */
final class AdapInv extends Inv {
    private final int[] base;
    private final int[][] succ;
    private final int exit;
    private final int inc;
    private final int bound;
    private final long top;
    private int[] counts;
    private long low;
    private long range;
    private final LongList words = new LongList();

    AdapInv(ThreadState ts, int method, Tables t) {
        super(ts, method);
        base = t.adapBase[method];
        succ = t.succ[method];
        exit = t.exitNode(method);
        inc = t.inc;
        bound = t.bound;
        top = 1L << (t.width - 1);
        range = top;
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
            if (range < total) {
                words.add(low);
                low = 0;
                range = top;
            }
            long r = range / total;
            low += cum * r;
            range = c[b + sym] * r;
            if (c[b + sym] + inc > bound) {
                for (int i = 0; i < k; i++) c[b + i] = Math.max(1, c[b + i] / 2);
            }
            c[b + sym] += inc;
        }
        if (to == exit) words.add(low);
    }

    @Override
    void emitTo(RecordLog log) {
        for (int i = 0; i < words.size; i++) log.value(words.values[i]);
    }
}
