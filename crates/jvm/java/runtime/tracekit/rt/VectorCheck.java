package tracekit.rt;

import java.io.*;
import java.nio.charset.StandardCharsets;

/**
 * Test harness: turns given paths into the raw records the probes would
 * keep (BLPP/PAP registers, choice digits — the same rules the instrumenter
 * compiles into bytecode) and codes them with the runtime's own coder into
 * a complete binary log, so the Rust tests can decode it and check the
 * in-JVM encoders against the core crate bit for bit.
 *
 * Usage: VectorCheck TABLES LOG &lt; paths, one per line: "METHOD N1 N2 …"
 * (the nodes after ENTRY, up to EXIT), or "METHOD N1 … Nk a": an invocation
 * ended by an exception in block Nk (the runtime completes it). Prints one
 * line "c METHOD COUNTERS…" per method with the thread's final AdapTracer
 * counters.
 */
public final class VectorCheck {
    public static void main(String[] args) throws Exception {
        Tables t;
        try (InputStream in = new FileInputStream(args[0])) {
            t = Tables.parse(in);
        }
        if (args[1].equals("-")) {
            direct(t);
            return;
        }
        Sink sink = new Sink(t, args[1]);
        ThreadBuffer from = new ThreadBuffer(0, Thread.currentThread());
        LongList buf = new LongList();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isEmpty()) continue;
            String[] f = line.split(" ");
            boolean aborted = f[f.length - 1].equals("a");
            int count = aborted ? f.length - 2 : f.length - 1;
            int m = Integer.parseInt(f[0]);
            int[] path = new int[count + 1];
            path[0] = t.entry[m];
            for (int i = 0; i < count; i++) path[i + 1] = Integer.parseInt(f[i + 1]);
            record(t, buf, m, path, aborted);
        }
        if (buf.size > 0) sink.submit(from, java.util.Arrays.copyOf(buf.values, buf.size), buf.size);
        java.util.ArrayList<ThreadBuffer> all = new java.util.ArrayList<>();
        all.add(from);
        sink.finish(all);
        ThreadState ts = sink.state(from);
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        for (int m = 0; m < t.methodCount(); m++) {
            if (ts.counters[m] == null) continue;
            out.write("c " + m);
            for (int c : ts.counters[m]) out.write(" " + c);
            out.write("\n");
        }
        out.flush();
    }

    /**
     * Context stream, coded directly with CtxModel (no raw records, so an
     * aborted invocation may carry any completion): lines "METHOD N1 … Nk"
     * or "METHOD N1 … Nk A LEN" (the whole coded path and the real length);
     * the stream ends with the end marker, as tracekit_paths'
     * ContextEncoder::finish codes it. Prints "w WORDS…".
     */
    static void direct(Tables t) throws IOException {
        ThreadState ts = new ThreadState(new ThreadBuffer(0, Thread.currentThread()), t);
        Coder coder = new Coder(t);
        CtxModel ctx = new CtxModel(ts);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int[] noted = new int[16];
        LongList raw = new LongList();
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isEmpty()) continue;
            String[] f = line.split(" ");
            boolean given = f.length >= 3 && f[f.length - 2].equals("A");
            int count = (given ? f.length - 2 : f.length) - 1;
            int m = Integer.parseInt(f[0]);
            int prev = t.entry[m], len = 0;
            int[] path = new int[count + 1];
            path[0] = prev;
            for (int i = 0; i < count; i++) {
                int w = Integer.parseInt(f[i + 1]);
                path[i + 1] = w;
                int[] s = t.succ[m][prev];
                if (s.length > 1) {
                    int sym = 0;
                    while (s[sym] != w) sym++;
                    if (len + 2 > noted.length) noted = java.util.Arrays.copyOf(noted, noted.length * 2);
                    noted[len++] = prev;
                    noted[len++] = sym;
                }
                prev = w;
            }
            // The probes' record of the path: repeatable when it ended normally with no spilled word.
            boolean repeatable = false;
            long digits = 0;
            if (!given) {
                raw.size = 0;
                record(t, raw, m, path, false);
                repeatable = raw.values[0] >>> 32 == 0;
                if (repeatable) digits = raw.values[1];
            }
            if (ctx.repeat.hit(coder, m, repeatable, digits)) continue;
            int realLen = given ? Integer.parseInt(f[f.length - 1]) : -1;
            ctx.invocation(coder, m, realLen, noted, len, t.succ[m]);
            ctx.repeat.record(m, repeatable, digits);
        }
        ctx.repeat.hit(coder, t.methodCount(), false, 0);
        ctx.method(coder, t.methodCount());
        coder.finish();
        StringBuilder sb = new StringBuilder("w");
        for (int i = 0; i < coder.words.size; i++) sb.append(' ').append(Long.toUnsignedString(coder.words.values[i]));
        System.out.println(sb);
    }

    /** The raw record of one invocation taking {@code path} (ENTRY first). */
    static void record(Tables t, LongList buf, int m, int[] path, boolean aborted) {
        LongList spill = new LongList();
        long state = 0;
        int sh = 0;
        for (int i = 0; i + 1 < path.length; i++) {
            int u = path[i], w = path[i + 1];
            int[] s = t.succ[m][u];
            int sym = 0;
            while (s[sym] != w) sym++;
            switch (t.schemeId) {
                case Tables.BLPP: {
                    long inc = t.blppInc[m][u][sym];
                    if (t.blppReset[m][u][sym] == -1) {
                        state += inc;
                    } else {
                        spill.add(state + inc);
                        state = 0;
                    }
                    break;
                }
                case Tables.PAP: {
                    int k = t.papRadix[m][w];
                    if (k > 1) {
                        int idx = t.papIndex[m][u][sym];
                        if (Long.compareUnsigned(state, Long.divideUnsigned(t.maxValue - idx, k)) > 0) {
                            spill.add(state);
                            spill.add(u);
                            state = idx;
                        } else {
                            state = state * k + idx;
                        }
                    }
                    break;
                }
                default: {
                    if (s.length < 2) break;
                    int bits = 32 - Integer.numberOfLeadingZeros(s.length - 1);
                    if (sh > 64 - bits) {
                        spill.add(state);
                        state = 0;
                        sh = 0;
                    }
                    state |= (long) sym << sh;
                    sh += bits;
                }
            }
        }
        buf.add(m | ((long) spill.size << 32) | (aborted ? Rt.ABORTED : Rt.NORMAL));
        for (int i = 0; i < spill.size; i++) buf.add(spill.values[i]);
        buf.add(state);
        if (aborted) buf.add((sh & 0xFFFFFFFFL) | ((long) path[path.length - 1] << 32));
    }
}
