package tracekit.rt;


/** One thread's invocation stack and finished records. */
final class ThreadState {
    final int index;
    final long javaId;
    final String name;
    final Tables tables;
    final RecordLog records = new RecordLog();
    Inv[] stack = new Inv[64];
    int depth;
    /** Per method: how many invocations are live on this thread. */
    final int[] live;
    /** Per method: this thread's adaptive edge counters (AdapTracer), made on first use. */
    final int[][] counters;

    ThreadState(int index, long javaId, String name, Tables tables) {
        this.index = index;
        this.javaId = javaId;
        this.name = name;
        this.tables = tables;
        this.live = new int[tables.methodCount()];
        this.counters = new int[tables.methodCount()][];
    }

    Inv top() {
        return depth == 0 ? null : stack[depth - 1];
    }

    void push(Inv inv) {
        if (depth == stack.length) stack = java.util.Arrays.copyOf(stack, depth * 2);
        stack[depth++] = inv;
        live[inv.method]++;
    }

    void pop() {
        Inv inv = stack[--depth];
        stack[depth] = null;
        live[inv.method]--;
    }

    /** Pops, as aborted, every invocation above {@code inv} (an exception unwound them). */
    void unwindTo(Inv inv) {
        while (depth > 0 && stack[depth - 1] != inv) {
            Inv dead = stack[depth - 1];
            pop();
            abort(dead);
        }
    }

    void abortAll() {
        while (depth > 0) {
            Inv dead = stack[depth - 1];
            pop();
            abort(dead);
        }
    }

    /** Ends an invocation that did not return: the path is completed to EXIT along a fixed route, and the record keeps the real length. */
    private void abort(Inv inv) {
        int realLen = inv.length;
        complete(tables, inv);
        finish(inv, realLen);
    }

    /** Walks the invocation from its last node to EXIT along the tables' fixed route. */
    static void complete(Tables tables, Inv inv) {
        int node = inv.prev;
        int exit = tables.exitNode(inv.method);
        while (node != exit) {
            node = tables.toExit[inv.method][node];
            inv.step(node);
        }
    }

    /** Set once the log holds this thread's records; later records are dropped. */
    boolean closed;

    /** Stream mode: the thread's one AdapTracer coder. */
    Coder streamCoder;

    /** Context stream: the thread's model (made with the coder). */
    CtxModel context;

    /** Stream mode: flushes the thread's coder (after the end marker in a context stream) into the log. */
    void finishStream() {
        if (streamCoder == null) return;
        if (context != null) context.method(streamCoder, tables.methodCount());
        streamCoder.finish();
        records.streamWords(streamCoder.words);
    }

    /** This thread's adaptive counters of {@code method}, made from the shipped model on first use. */
    int[] methodCounters(int method) {
        int[] c = counters[method];
        if (c == null) counters[method] = c = tables.adapInit[method].clone();
        return c;
    }

    synchronized void finish(Inv inv, int realLen) {
        if (closed) return;
        if (tables.stream && inv instanceof AdapInv) {
            if (streamCoder == null) streamCoder = new Coder(tables);
            if (tables.context) {
                // Everything goes through the coder; the log keeps only the verification sidecar.
                if (context == null) context = new CtxModel(this);
                ((AdapInv) inv).codeContext(context, streamCoder, realLen);
                if (inv.rawNodes != null) records.verify(inv.rawNodes, inv.length);
                return;
            }
            ((AdapInv) inv).codeInto(streamCoder);
        }
        records.begin(inv.method, realLen, inv.nested);
        inv.emitTo(records);
        records.end();
        if (inv.rawNodes != null) records.raw(inv.rawNodes, inv.length);
    }
}
