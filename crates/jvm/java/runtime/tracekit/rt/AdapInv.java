package tracekit.rt;

/**
 * AdapTracer: each choice at a node with several out-edges is coded under the
 * node's adaptive counters (see {@link Coder}). Per-invocation mode codes as
 * the invocation runs into its own words (recursive invocations use their
 * own copy of the shipped counters). Stream mode only notes the choices and
 * codes them into the thread's one coder when the invocation finishes, so
 * invocations follow each other in completion order without padding.
 */
final class AdapInv extends Inv {
    private final int[] base;
    private final int[][] succ;
    private final int exit;
    private final boolean stream;
    private int[] counts;
    private Coder coder;
    /** Stream mode: (node, symbol) pairs noted so far. */
    private int[] noted;
    private int notedLen;

    AdapInv(ThreadState ts, int method, Tables t) {
        super(ts, method);
        base = t.adapBase[method];
        succ = t.succ[method];
        exit = t.exitNode(method);
        stream = t.stream;
    }

    private int[] counts() {
        if (counts == null) {
            int[] init = thread.tables.adapInit[method];
            if (nested && !stream) {
                counts = init.clone();
            } else {
                counts = thread.methodCounters(method);
            }
        }
        return counts;
    }

    @Override
    void edge(int from, int to) {
        int b = base[from];
        if (b < 0) {
            if (to == exit && coder != null) coder.finish();
            return;
        }
        int[] s = succ[from];
        int sym = 0;
        while (s[sym] != to) sym++;
        if (stream) {
            if (noted == null) noted = new int[16];
            else if (notedLen + 2 > noted.length) noted = java.util.Arrays.copyOf(noted, noted.length * 2);
            noted[notedLen++] = from;
            noted[notedLen++] = sym;
            return;
        }
        if (coder == null) coder = new Coder(thread.tables);
        coder.code(counts(), b, s.length, sym);
        if (to == exit) coder.finish();
    }

    /** Stream mode: codes the noted choices into the thread's coder (in completion order). */
    void codeInto(Coder threadCoder) {
        if (notedLen == 0) return;
        int[] c = counts();
        for (int i = 0; i < notedLen; i += 2) {
            int from = noted[i];
            threadCoder.code(c, base[from], succ[from].length, noted[i + 1]);
        }
    }

    /** Context stream: codes the method, how it ended and the noted choices through the thread's model. */
    void codeContext(CtxModel ctx, Coder threadCoder, int realLen) {
        ctx.invocation(threadCoder, method, realLen, noted, notedLen, succ);
    }

    @Override
    void emitTo(RecordLog log) {
        if (coder == null) return;
        if (stream) return;
        for (int i = 0; i < coder.words.size; i++) log.value(coder.words.values[i]);
    }
}
