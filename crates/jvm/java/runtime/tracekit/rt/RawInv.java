package tracekit.rt;

/** Ground truth: every node id, uncompressed. */
final class RawInv extends Inv {
    private int[] nodes = new int[8];

    RawInv(ThreadState ts, int method) {
        super(ts, method);
    }

    @Override
    void edge(int from, int to) {
        if (length == nodes.length) nodes = java.util.Arrays.copyOf(nodes, length * 2);
        nodes[length] = to;
    }

    @Override
    void emitTo(RecordLog log) {
        for (int i = 0; i < length; i++) log.value(nodes[i]);
    }
}
