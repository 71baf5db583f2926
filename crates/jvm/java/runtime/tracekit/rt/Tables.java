package tracekit.rt;

import java.io.*;
import java.nio.charset.StandardCharsets;

/**
 * Per-method tables written by tracekit at instrumentation time
 * (resource tracekit/tables.txt). Line format, one record per line:
 * header of key-value pairs ("scheme S width W inc I bound B methods N
 * verify V stream S context C fp F"), then per method "m ID NODES"
 * followed by its rows (see tracekit_jvm::tables).
 */
final class Tables {
    static final int RAW = 0, BLPP = 1, PAP = 2, ADAPTRACER = 3;
    String scheme;
    int schemeId;
    int width;
    int inc;
    int bound;
    /** Also record every node (raw) beside the scheme's trace, to check decoding on the same run. */
    boolean verify;
    /** AdapTracer stream mode: one coder per thread, invocations coded at completion. */
    boolean stream;
    /** Context stream (with stream mode): method ids, ends and choices predicted from the thread's history. */
    boolean context;
    /** Context stream: per method, its first counter's global index; per method, node: ordinal among its choice nodes (-1: none); per method: number of choice nodes. */
    int[] adapOffset;
    int[][] adapFlagIndex;
    int[] adapChoiceNodes;
    /** Identifies the tables (and so the instrumented program); copied into the log header. */
    long fingerprint;
    /** Bits of a record's head: ceil(log2(methods + 1)); the value {@code methods} marks an aborted record. */
    int headBits;
    /** Per method: bits of a node id, ceil(log2 nodes). */
    int[] nodeBits;
    /** Largest PathID value representable in width bits, as an unsigned long. */
    long maxValue;
    int[] nodes;
    /** Per method: ENTRY and EXIT node ids (default 0 and NODES - 1; row "ee"). */
    int[] entry;
    int[] exit;
    /** Per method, per node: next node on a fixed route to EXIT. */
    int[][] toExit;
    /** Per method, per node: successor node ids (out-edge order). */
    int[][][] succ;
    /** BLPP: per method, node, out-edge: increment (or value emitted on a back/split edge). */
    long[][][] blppInc;
    /** BLPP: per method, node, out-edge: restart value after a back/split edge, or -1 for a plain edge. */
    long[][][] blppReset;
    /** PAP: per method, per node: number of in-edges. */
    int[][] papRadix;
    /** PAP: per method, node, out-edge: index of this edge among its target's in-edges. */
    int[][][] papIndex;
    /** AdapTracer: per method, per node: offset of its first out-edge counter (or -1 when it has at most one out-edge). */
    int[][] adapBase;
    /** AdapTracer: per method: initial counters from the shipped model. */
    int[][] adapInit;

    int methodCount() {
        return nodes.length;
    }

    int exitNode(int method) {
        return exit[method];
    }

    static Tables load() {
        try (InputStream in = Tables.class.getResourceAsStream("/tracekit/tables.txt")) {
            if (in == null) throw new IllegalStateException("tracekit: resource tracekit/tables.txt missing from the instrumented jar");
            return parse(in);
        } catch (IOException e) {
            throw new IllegalStateException("tracekit: cannot read tables: " + e, e);
        }
    }

    /**
     * The rows of tables.txt, read byte by byte. The coder thread parses
     * them as the program starts, before the JIT has compiled anything:
     * splitting lines into strings took 0.24–0.26 s there on a 4,600-method
     * jar, this scanner 0.09 s (BENCHMARKS.md, stop 29).
     */
    private static final class Rows {
        private final byte[] b;
        private int p;
        /** Numbers of the current row (reused). */
        private long[] row = new long[64];

        Rows(byte[] b) {
            this.b = b;
        }

        private void spaces() {
            while (p < b.length && b[p] == ' ') p++;
        }

        /** The next space-separated word of the line, or null at its end. */
        String word() {
            spaces();
            int start = p;
            while (p < b.length && b[p] != ' ' && b[p] != '\n') p++;
            return p == start ? null : new String(b, start, p - start, StandardCharsets.UTF_8);
        }

        /** Steps past the current line's end; false at the end of the text. */
        boolean nextLine() {
            while (p < b.length && b[p] != '\n') p++;
            if (p < b.length) p++;
            return p < b.length;
        }

        /** Parses the rest of the line as numbers (unsigned up to 2^64 - 1, or negative; "-" is -1); returns how many. */
        int numbers() throws IOException {
            int n = 0;
            while (true) {
                spaces();
                if (p >= b.length || b[p] == '\n' || b[p] == '\r') return n;
                boolean minus = b[p] == '-';
                if (minus) p++;
                int start = p;
                long v = 0;
                while (p < b.length && b[p] >= '0' && b[p] <= '9') v = v * 10 + (b[p++] - '0');
                if (p - start > 20) throw new IOException("tracekit/tables.txt: bad number at byte " + start);
                if (p == start) {
                    // A lone "-" stands for -1 (BLPP's plain edges).
                    if (!minus) throw new IOException("tracekit/tables.txt: bad number at byte " + start);
                    v = 1;
                }
                if (minus) v = -v;
                if (p < b.length && b[p] != ' ' && b[p] != '\n' && b[p] != '\r') throw new IOException("tracekit/tables.txt: bad number at byte " + p);
                if (n == row.length) row = java.util.Arrays.copyOf(row, n * 2);
                row[n++] = v;
            }
        }

        long[] longs(int from, int n) {
            return java.util.Arrays.copyOfRange(row, from, n);
        }

        int[] ints(int from, int n) {
            int[] out = new int[n - from];
            for (int i = from; i < n; i++) out[i - from] = (int) row[i];
            return out;
        }

        int get(int i, int n) throws IOException {
            if (i >= n) throw new IOException("tracekit/tables.txt: row too short at byte " + p);
            return (int) row[i];
        }
    }

    static Tables parse(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream(1 << 16);
        byte[] chunk = new byte[1 << 16];
        for (int k; (k = in.read(chunk)) > 0; ) all.write(chunk, 0, k);
        return parse(all.toByteArray());
    }

    static Tables parse(byte[] text) throws IOException {
        Tables t = new Tables();
        Rows r = new Rows(text);
        java.util.HashMap<String, String> kv = new java.util.HashMap<>();
        for (String key; (key = r.word()) != null; ) kv.put(key, r.word());
        t.scheme = kv.get("scheme");
        t.schemeId = java.util.Arrays.asList("raw", "blpp", "pap", "adaptracer").indexOf(t.scheme);
        t.width = Integer.parseInt(kv.get("width"));
        t.inc = Integer.parseInt(kv.get("inc"));
        t.bound = Integer.parseInt(kv.get("bound"));
        int n = Integer.parseInt(kv.get("methods"));
        t.verify = "1".equals(kv.get("verify"));
        t.stream = "1".equals(kv.get("stream"));
        t.context = t.stream && "1".equals(kv.get("context"));
        t.fingerprint = Long.parseUnsignedLong(kv.getOrDefault("fp", "0"));
        t.maxValue = t.width >= 64 ? -1L : (1L << t.width) - 1;
        t.nodes = new int[n];
        t.entry = new int[n];
        t.exit = new int[n];
        t.toExit = new int[n][];
        t.succ = new int[n][][];
        t.blppInc = new long[n][][];
        t.blppReset = new long[n][][];
        t.papRadix = new int[n][];
        t.papIndex = new int[n][][];
        t.adapBase = new int[n][];
        t.adapInit = new int[n][];
        int m = -1, k = 0;
        while (r.nextLine()) {
            String kind = r.word();
            if (kind == null) continue;
            int f = r.numbers();
            switch (kind) {
                case "m":
                    m = r.get(0, f);
                    int nodes = r.get(1, f);
                    t.nodes[m] = nodes;
                    t.exit[m] = nodes - 1;
                    t.succ[m] = new int[nodes][];
                    t.blppInc[m] = new long[nodes][];
                    t.blppReset[m] = new long[nodes][];
                    t.papIndex[m] = new int[nodes][];
                    k = 0;
                    break;
                case "x": t.toExit[m] = r.ints(0, f); break;
                case "ee": t.entry[m] = r.get(0, f); t.exit[m] = r.get(1, f); break;
                case "s": t.succ[m][k++] = r.ints(0, f); break;
                case "bi": t.blppInc[m][r.get(0, f)] = r.longs(1, f); break;
                case "br": t.blppReset[m][r.get(0, f)] = r.longs(1, f); break;
                case "pr": t.papRadix[m] = r.ints(0, f); break;
                case "pi": t.papIndex[m][r.get(0, f)] = r.ints(1, f); break;
                case "ab": t.adapBase[m] = r.ints(0, f); break;
                case "ac": t.adapInit[m] = r.ints(0, f); break;
                default: throw new IOException("tracekit/tables.txt: unknown row " + kind);
            }
        }
        if (t.schemeId == ADAPTRACER) t.layoutCounters();
        t.headBits = bitsFor(n + 1);
        t.nodeBits = new int[n];
        for (int i = 0; i < n; i++) t.nodeBits[i] = bitsFor(t.nodes[i]);
        if (t.schemeId == RAW || t.schemeId == ADAPTRACER) t.prepareWalks();
        return t;
    }

    /** Bits needed to name one of {@code n} things: ceil(log2 n). */
    static int bitsFor(long n) {
        return n <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(n - 1);
    }

    /** Global counter numbering of the context stream (see tracekit_paths::context_stream::ContextLayout). */
    private void layoutCounters() {
        int n = methodCount();
        adapOffset = new int[n];
        adapFlagIndex = new int[n][];
        adapChoiceNodes = new int[n];
        int off = 0;
        for (int m = 0; m < n; m++) {
            adapOffset[m] = off;
            off += adapInit[m] == null ? 0 : adapInit[m].length;
            int[] base = adapBase[m] == null ? new int[0] : adapBase[m];
            adapFlagIndex[m] = new int[base.length];
            int f = 0;
            for (int v = 0; v < base.length; v++) adapFlagIndex[m][v] = base[v] < 0 ? -1 : f++;
            adapChoiceNodes[m] = f;
        }
    }

    /**
     * The walk tables, made for every method as the tables are read (raw
     * and AdapTracer). Made on first use instead, the making was compiled
     * by C2 into the coder's hot methods (a check per record whose other
     * side runs once per method, thousands of times: too often for the JIT
     * to leave it out): raw's coder took 33 KB of code and 0.21 s of C2
     * (BENCHMARKS.md, stop 38).
     */
    private void prepareWalks() {
        int n = methodCount();
        chainEnd = new int[n][];
        chainLen = new int[n][];
        hopBase = new int[n][];
        hopK = new int[n][];
        hopTo = new int[n][];
        boolean raw = schemeId == RAW;
        if (raw) {
            rawHopBits = new long[n][];
            rawHopLen = new int[n][];
            rawStartBits = new long[n];
            rawStartLen = new int[n];
            rawHopsFit = new boolean[n];
        }
        for (int m = 0; m < n; m++) {
            if (succ[m] == null) continue;
            chains(m);
            hops(m);
            if (raw) rawHops(m);
        }
    }

    /** Per method, per node: where following single successors from the node ends (a choice or EXIT), and in how many steps. */
    int[][] chainEnd, chainLen;

    private void chains(int m) {
        int[][] s = succ[m];
        int nodes = s.length;
        int[] end = new int[nodes];
        int[] len = new int[nodes];
        for (int v = 0; v < nodes; v++) {
            int w = v, steps = 0;
            // Runs are acyclic: a cycle of single successors could not reach EXIT.
            while (s[w] != null && s[w].length == 1 && steps <= nodes) {
                w = s[w][0];
                steps++;
            }
            end[v] = w;
            len[v] = steps;
        }
        chainLen[m] = len;
        chainEnd[m] = end;
    }

    /**
     * Per method: the walk of a normally ended invocation's choice digits
     * as one table step per choice. For a block v with k >= 2 successors
     * ({@code hopK[m][v]}), {@code hopBase[m][v]} is where its k steps start
     * in {@code hopTo[m]}: the block that taking choice i and then every
     * single successor leads to (a choice or EXIT); other blocks have base
     * -1.
     */
    int[][] hopBase, hopK, hopTo;

    private void hops(int m) {
        int[] end = chainEnd[m];
        int[][] s = succ[m];
        int[] base = new int[s.length], k = new int[s.length];
        int total = 0;
        for (int v = 0; v < s.length; v++) {
            k[v] = s[v] == null ? 0 : s[v].length;
            base[v] = k[v] >= 2 ? total : -1;
            if (base[v] >= 0) total += k[v];
        }
        int[] to = new int[total];
        for (int v = 0; v < s.length; v++) {
            for (int i = 0; base[v] >= 0 && i < k[v]; i++) to[base[v] + i] = end[s[v][i]];
        }
        hopK[m] = k;
        hopTo[m] = to;
        hopBase[m] = base;
    }

    /**
     * Raw, per method: per step of {@link #hopTo}, the node ids the step
     * passes (the choice's successor through the end of its run of single
     * successors, each {@link #nodeBits} wide, the first in the highest
     * bits) and how many bits they take; the same for the run from ENTRY
     * ({@link #rawStartBits}). {@link #rawHopsFit} is false for a method
     * where one of them takes more than 64 bits.
     */
    long[][] rawHopBits;
    int[][] rawHopLen;
    long[] rawStartBits;
    int[] rawStartLen;
    boolean[] rawHopsFit;

    private void rawHops(int m) {
        int[][] s = succ[m];
        int[] base = hopBase[m], k = hopK[m];
        long[] bits = new long[hopTo[m].length];
        int[] len = new int[bits.length];
        boolean fit = true;
        for (int v = 0; v < s.length; v++) {
            for (int i = 0; base[v] >= 0 && i < k[v]; i++) {
                len[base[v] + i] = runBits(m, s[v][i], bits, base[v] + i);
                fit &= len[base[v] + i] >= 0;
            }
        }
        int entry = this.entry[m];
        long[] start = new long[1];
        rawStartLen[m] = k[entry] == 1 ? runBits(m, s[entry][0], start, 0) : 0;
        rawStartBits[m] = start[0];
        rawHopsFit[m] = fit && rawStartLen[m] >= 0;
        rawHopLen[m] = len;
        rawHopBits[m] = bits;
    }

    /**
     * The node ids from {@code w} through the end of its run of single
     * successors, packed into {@code out[at]}; returns their bit count, or
     * -1 when more than 64.
     */
    private int runBits(int m, int w, long[] out, int at) {
        int[][] s = succ[m];
        int nb = nodeBits[m], len = 0;
        long acc = 0;
        for (int steps = 0; steps <= s.length; steps++) {
            if (len + nb > 64) return -1;
            acc = nb == 0 ? acc : (acc << nb) | w;
            len += nb;
            if (s[w] == null || s[w].length != 1) break;
            w = s[w][0];
        }
        out[at] = acc;
        return len;
    }

    /** Index of {@code to} among {@code from}'s out-edges. */
    int outIndex(int method, int from, int to) {
        int[] s = succ[method][from];
        for (int i = 0; i < s.length; i++) if (s[i] == to) return i;
        throw new IllegalStateException("tracekit: method " + method + " has no edge " + from + "->" + to);
    }
}
