package tracekit.rt;

import java.io.IOException;
import java.io.Writer;

/** Finished invocation records of one thread, as text lines built in memory. */
final class RecordLog {
    private final StringBuilder sb = new StringBuilder(1 << 12);
    private final java.util.ArrayList<String> chunks = new java.util.ArrayList<>();

    void begin(int method, int realLen, boolean nested) {
        sb.append(nested ? "n " : "i ").append(method).append(' ').append(realLen);
    }

    void value(long v) {
        sb.append(' ').append(Long.toUnsignedString(v));
    }

    /** The verification sidecar of the record just ended: "r NODES…". */
    void raw(int[] nodes, int n) {
        sb.append('r');
        for (int i = 0; i < n; i++) sb.append(' ').append(nodes[i]);
        end();
    }

    /** Context stream: the verification sidecar of the thread's next invocation: "v NODES…". */
    void verify(int[] nodes, int n) {
        sb.append('v');
        for (int i = 0; i < n; i++) sb.append(' ').append(nodes[i]);
        end();
    }

    /** Stream mode: the thread's AdapTracer words, after its records: "w WORDS…". */
    void streamWords(LongList words) {
        sb.append('w');
        for (int i = 0; i < words.size; i++) sb.append(' ').append(Long.toUnsignedString(words.values[i]));
        end();
    }

    void breakpoint(int node) {
        sb.append(" @").append(node);
    }

    void end() {
        sb.append('\n');
        if (sb.length() > (1 << 20)) {
            chunks.add(sb.toString());
            sb.setLength(0);
        }
    }

    void writeTo(Writer w) throws IOException {
        for (String c : chunks) w.write(c);
        w.write(sb.toString());
    }
}
