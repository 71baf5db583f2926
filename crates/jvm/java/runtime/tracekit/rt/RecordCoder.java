package tracekit.rt;

/**
 * Codes raw records (see Rt) under the scheme, on the coder thread.
 *
 * A raw record is what the probes kept in locals: BLPP's ids (spilled at
 * back edges) and final register, PAP's breakpoints (value, node) and final
 * register, or for raw and AdapTracer the choice digits (each choice's
 * successor index in ceil(log2 k) bits, least significant first, a new word
 * when the next digit would not fit in 64 bits). An aborted record adds the
 * block the exception left and the digit shift of the last word. Each
 * record is completed to EXIT along the tables' fixed route when aborted,
 * then coded exactly as the tracekit-paths encoders code that path; the bit
 * layout of the records is specified in the tracekit-jvm crate (module log).
 */
final class RecordCoder {
    private final Tables t;
    private final int width;
    /** Scratch: noted (node, symbol) choices, nodes, values, breakpoint nodes. */
    private int[] noted = new int[64];
    private int notedLen;
    private int[] nodes = new int[64];
    private int nodesLen;
    private final LongList values = new LongList();
    private final LongList bpNodes = new LongList();
    private final BitOut body = new BitOut();
    /** AdapTracer words per invocation: one coder, reset per record. */
    private Coder single;

    RecordCoder(Tables t) {
        this.t = t;
        this.width = t.width;
    }

    /** Codes the record at {@code b[p]}; returns the index of the next one. */
    int code(ThreadState ts, long[] b, int p) {
        long h = b[p];
        int m = (int) h;
        int n = (int) ((h >>> 32) & 0xFFFFFF);
        long kind = h & (0xFFL << 56);
        if (kind == Rt.VERIFY) {
            BitOut s = ts.sidecar;
            s.varint(n);
            for (int i = 0; i < n; i++) s.varint((b[p + 1 + i / 2] >>> (32 * (i & 1))) & 0xFFFFFFFFL);
            return p + 1 + (n + 1) / 2;
        }
        if (m < 0 || m >= t.methodCount()) throw new IllegalStateException("method id " + m + " out of range");
        boolean aborted = kind == Rt.ABORTED;
        boolean straight = kind == Rt.STRAIGHT;
        long state = straight ? 0 : b[p + 1 + n];
        int sh = aborted ? (int) b[p + n + 2] : 0;
        int cur = aborted ? (int) (b[p + n + 2] >>> 32) : -1;
        ts.blockCount++;
        switch (t.schemeId) {
            case Tables.BLPP: blpp(ts, m, b, p + 1, n, state, cur); break;
            case Tables.PAP: pap(ts, m, b, p + 1, n, state, cur); break;
            case Tables.RAW: {
                if (!aborted && rawNormal(ts, m, b, p + 1, n, state)) break;
                walk(m, b, p + 1, n, state, aborted, sh, cur, true);
                head(ts.block, m, cur);
                int bits = t.nodeBits[m];
                for (int i = 0; i < nodesLen; i++) ts.block.put(nodes[i], bits);
                break;
            }
            default: adaptracer(ts, m, b, p + 1, n, state, aborted, sh, cur);
        }
        return straight ? p + 1 : p + n + (aborted ? 3 : 2);
    }

    /**
     * Codes the run of simple records from {@code b[p]} until {@code end},
     * the first other record, or {@link #blockBits} reaching {@code limit};
     * returns where it stopped ({@code p} when it coded nothing).
     * Simple records are the one-long records of one-path methods (every
     * scheme but the context stream) and, for BLPP and PAP, records ended
     * normally with no spilled words. Each codes as a head then a tail:
     * for BLPP and PAP the method id (PAP adds a gamma(1) of no
     * breakpoints) then the register, as {@link #blpp} and {@link #pap}
     * code them; for a one-path method under raw and AdapTracer, the method
     * id then the bits {@link #code} gives such a method after its head,
     * worked out once per method ({@link #straightTailLen}). The bit
     * writer's state stays in locals: two fields per record instead of a
     * call chain that stores the writer back after every field.
     */
    int codeRun(ThreadState ts, long[] b, int p, int end, long limit) {
        if (t.context) return p;
        int scheme = t.schemeId;
        boolean plain = scheme == Tables.BLPP || scheme == Tables.PAP;
        BitOut o = ts.block;
        // The limit is on blockBits, which counts a stream coder's words too;
        // no record of a run adds to them, so they come off the limit once.
        limit -= blockBits(ts) - o.bits;
        long[] words = o.words;
        int full = o.full, filled = o.filled;
        long acc = o.acc, bits = o.bits;
        int hb = t.headBits, w = t.width, methods = t.methodCount();
        // The PAP flag (one bit) goes with the head.
        int flag = scheme == Tables.PAP ? 1 : 0;
        long wMask = (-1L >>> (64 - w)) & -(long) ((w + 63) >>> 6);
        int count = 0;
        while (p < end && bits < limit) {
            long h = b[p];
            long kind = h & (0xFFL << 56);
            int m = (int) h;
            if (m < 0 || m >= methods) break;
            long head, tail;
            int headLen, tailLen, next;
            if (plain && (kind == Rt.STRAIGHT || ((h >>> 32) == 0 && p + 1 < end))) {
                head = ((long) m << flag) | flag;
                headLen = hb + flag;
                tail = kind == Rt.STRAIGHT ? 0 : b[p + 1] & wMask;
                tailLen = w;
                next = kind == Rt.STRAIGHT ? p + 1 : p + 2;
            } else if (kind == Rt.STRAIGHT && (tailLen = straightTailLen(m)) >= 0) {
                head = m;
                headLen = hb;
                tail = tailBits[m];
                next = p + 1;
            } else {
                break;
            }
            // Room for two more words: a record is at most 64 + 33 bits.
            if (full + 2 > words.length) words = java.util.Arrays.copyOf(words, words.length * 2);
            int total = filled + headLen;
            if (total < 64) {
                acc = (acc << headLen) | head;
                filled = total;
            } else {
                int rest = total - 64;
                words[full++] = ((acc << (63 - filled)) << 1) | (head >>> rest);
                acc = head;
                filled = rest;
            }
            total = filled + tailLen;
            if (total < 64) {
                acc = (acc << tailLen) | tail;
                filled = total;
            } else {
                int rest = total - 64;
                words[full++] = ((acc << (63 - filled)) << 1) | (tail >>> rest);
                acc = tail;
                filled = rest;
            }
            bits += headLen + tailLen;
            count++;
            p = next;
        }
        o.words = words;
        o.full = full;
        o.filled = filled;
        o.acc = acc;
        o.bits = bits;
        ts.blockCount += count;
        return p;
    }

    /** Per method: the bits a one-long record codes after its head, and how many (-1: not worked out yet; -2: more than 64). */
    private long[] tailBits;
    private int[] tailLens;
    /** Where {@link #straightTailLen} codes a one-long record by the general path. */
    private ThreadState scratch;

    /**
     * The number of bits a one-long record of method {@code m} codes after
     * its head under raw or AdapTracer (they are the same for every such
     * record: the method's one path, and no choice that would move a
     * counter), or -2 when more than 64. Worked out by coding one such
     * record by {@link #code} into a scratch block.
     */
    private int straightTailLen(int m) {
        if (tailLens == null) {
            tailLens = new int[t.methodCount()];
            java.util.Arrays.fill(tailLens, -1);
            tailBits = new long[t.methodCount()];
        }
        int len = tailLens[m];
        if (len != -1) return len;
        if (scratch == null) scratch = new ThreadState(new ThreadBuffer(-1, Thread.currentThread()), t);
        BitOut s = scratch.block;
        s.reset();
        code(scratch, new long[] {m | Rt.STRAIGHT}, 0);
        long n = s.bits - t.headBits;
        len = n <= 64 ? (int) n : -2;
        if (len >= 0) tailBits[m] = s.lastBits(len);
        tailLens[m] = len;
        return len;
    }

    /** A record's head: the method id, or for an aborted one the escape value, the method id and the block. */
    private void head(BitOut o, int m, int cur) {
        if (cur < 0) {
            o.put(m, t.headBits);
        } else {
            o.put(t.methodCount(), t.headBits);
            o.put(m, t.headBits);
            o.put(cur, t.nodeBits[m]);
        }
    }

    private static int indexOf(int[] s, int w) {
        for (int i = 0; i < s.length; i++) if (s[i] == w) return i;
        throw new IllegalStateException("no edge to " + w);
    }

    private void blpp(ThreadState ts, int m, long[] b, int off, int n, long state, int cur) {
        BitOut o = ts.block;
        head(o, m, cur);
        for (int i = 0; i < n; i++) o.put(b[off + i], width);
        if (cur < 0) {
            o.put(state, width);
            return;
        }
        long r = state;
        int node = cur, exit = t.exit[m];
        while (node != exit) {
            int next = t.toExit[m][node];
            int i = indexOf(t.succ[m][node], next);
            long inc = t.blppInc[m][node][i];
            if (t.blppReset[m][node][i] == -1) {
                r += inc;
            } else {
                o.put(r + inc, width);
                r = 0;
            }
            node = next;
        }
        o.put(r, width);
    }

    private void pap(ThreadState ts, int m, long[] b, int off, int n, long state, int cur) {
        values.size = 0;
        bpNodes.size = 0;
        for (int i = 0; i + 1 < n; i += 2) {
            values.add(b[off + i]);
            bpNodes.add(b[off + i + 1]);
        }
        long r = state;
        if (cur >= 0) {
            int node = cur, exit = t.exit[m];
            int[] radix = t.papRadix[m];
            while (node != exit) {
                int next = t.toExit[m][node];
                int k = radix[next];
                if (k > 1) {
                    int idx = t.papIndex[m][node][indexOf(t.succ[m][node], next)];
                    if (Long.compareUnsigned(r, Long.divideUnsigned(t.maxValue - idx, k)) > 0) {
                        values.add(r);
                        bpNodes.add(node);
                        r = idx;
                    } else {
                        r = r * k + idx;
                    }
                }
                node = next;
            }
        }
        BitOut o = ts.block;
        head(o, m, cur);
        o.gamma(values.size + 1);
        int nb = t.nodeBits[m];
        for (int i = 0; i < values.size; i++) {
            o.put(values.values[i], width);
            o.put(bpNodes.values[i], nb);
        }
        o.put(r, width);
    }

    private void adaptracer(ThreadState ts, int m, long[] b, int off, int n, long state, boolean aborted, int sh, int cur) {
        if (t.context) {
            if (ts.coder == null) ts.coder = new Coder(t);
            if (ts.context == null) ts.context = new CtxModel(ts);
            // Repeatable: every digit in the state word, ended normally.
            boolean repeatable = n == 0 && !aborted;
            long digits = repeatable ? state : 0;
            CtxRepeat repeat = ts.context.repeat;
            if (repeat.hit(ts.coder, m, repeatable, digits)) return;
            int realLen = aborted ? walk(m, b, off, n, state, true, sh, cur, false) : walkNormal(m, b, off, n, state);
            ts.context.invocation(ts.coder, m, realLen, noted, notedLen, t.succ[m]);
            repeat.record(m, repeatable, digits);
            return;
        }
        int realLen = aborted ? walk(m, b, off, n, state, true, sh, cur, false) : walkNormal(m, b, off, n, state);
        int[] base = t.adapBase[m];
        int[][] succ = t.succ[m];
        Coder c;
        if (t.stream) {
            if (ts.coder == null) ts.coder = new Coder(t);
            c = ts.coder;
        } else {
            if (single == null) single = new Coder(t);
            c = single;
            c.reset();
        }
        if (notedLen > 0) {
            int[] counts = ts.methodCounters(m);
            for (int i = 0; i < notedLen; i += 2) {
                int v = noted[i];
                c.code(counts, base[v], succ[v].length, noted[i + 1]);
            }
        }
        BitOut o = ts.block;
        head(o, m, cur);
        if (t.stream) return;
        c.finish();
        o.gamma(c.words.size + 1);
        for (int i = 0; i < c.words.size; i++) o.put(c.words.values[i], width);
    }

    private void note(int v, int sym) {
        if (notedLen + 2 > noted.length) noted = java.util.Arrays.copyOf(noted, noted.length * 2);
        noted[notedLen++] = v;
        noted[notedLen++] = sym;
    }

    private void addNode(int v) {
        if (nodesLen == nodes.length) nodes = java.util.Arrays.copyOf(nodes, nodesLen * 2);
        nodes[nodesLen++] = v;
    }

    /**
     * The choice digits a walk reads: the record's spilled words
     * {@code digitWords[digitOff..digitOff + digitCount)}, then its state
     * word; {@code digitIndex} is the word being read and {@code digitUsed}
     * its bits taken.
     */
    private long[] digitWords;
    private int digitOff, digitCount, digitIndex, digitUsed;
    private long digitState, digitWord;

    private void startDigits(long[] b, int off, int n, long state) {
        digitWords = b;
        digitOff = off;
        digitCount = n;
        digitState = state;
        digitIndex = 0;
        digitUsed = 0;
        digitWord = n > 0 ? b[off] : state;
    }

    /** The next digit: the choice among {@code k} successors at block {@code node} of method {@code m}. */
    private int nextDigit(int m, int node, int k) {
        int bits = 32 - Integer.numberOfLeadingZeros(k - 1);
        if (digitUsed > 64 - bits) {
            if (++digitIndex > digitCount) throw new IllegalStateException("method " + m + ": digits run out");
            digitWord = digitIndex < digitCount ? digitWords[digitOff + digitIndex] : digitState;
            digitUsed = 0;
        }
        int sym = (int) ((digitWord >>> digitUsed) & ((1L << bits) - 1));
        digitUsed += bits;
        if (sym >= k) throw new IllegalStateException("method " + m + ": choice " + sym + " of " + k + " at block " + node);
        return sym;
    }

    /**
     * The walk cache: the noted choices of the invocations last walked
     * (raw: the bits they code), direct-mapped by (method, digit word), for
     * records with every digit in the state word. Programs repeat a few
     * thousand paths millions of times (99.7% hits on HSQLDB and H2), so
     * most walks become a lookup and a copy: the AdapTracer coder of
     * HSQLDB's recorded buffers takes 18% less time (BENCHMARKS.md, stop 38).
     */
    private static final int CACHE_BITS = 14;
    private final int[] cacheMethod = new int[1 << CACHE_BITS];
    private final long[] cacheDigits = new long[1 << CACHE_BITS];
    private final int[][] cacheNoted = new int[1 << CACHE_BITS][];
    /** Raw: the bits the cached invocation codes after its head (at most 64), and how many. */
    private final long[] cacheBits = new long[1 << CACHE_BITS];
    private final int[] cacheLen = new int[1 << CACHE_BITS];

    /** The walk cache's slot of (method, digit word). */
    private static int cacheSlot(int m, long digits) {
        return (int) ((digits * 0x9E3779B97F4A7C15L + m) * 0xC2B2AE3D27D4EB4FL >>> (64 - CACHE_BITS));
    }

    /**
     * {@link #walk} of a normally ended invocation, when the blocks are not
     * wanted: from the walk cache, or one table step per choice
     * ({@link Tables#hopBase}). Returns -1.
     */
    private int walkNormal(int m, long[] b, int off, int n, long state) {
        // Only records whose digits all fit in the state word are cached (as in rawNormal).
        int h = cacheSlot(m, state);
        if (n == 0 && cacheMethod[h] == m + 1 && cacheDigits[h] == state) {
            int[] c = cacheNoted[h];
            int len = c.length;
            if (len > noted.length) noted = new int[Math.max(len, 2 * noted.length)];
            System.arraycopy(c, 0, noted, 0, len);
            notedLen = len;
            return -1;
        }
        walkChoices(m, b, off, n, state);
        if (n == 0) {
            cacheMethod[h] = m + 1;
            cacheDigits[h] = state;
            cacheNoted[h] = java.util.Arrays.copyOf(noted, notedLen);
        }
        return -1;
    }

    /** {@link #walkNormal} without the cache: fills {@link #noted}. */
    private void walkChoices(int m, long[] b, int off, int n, long state) {
        notedLen = 0;
        int[] base = t.hopBase[m], ks = t.hopK[m], to = t.hopTo[m];
        int exit = t.exit[m];
        int node = t.chainEnd[m][t.entry[m]];
        startDigits(b, off, n, state);
        while (node != exit) {
            int at = base[node];
            if (at < 0) throw new IllegalStateException("method " + m + ": block " + node + " has no successor");
            int k = ks[node];
            int sym = nextDigit(m, node, k);
            note(node, sym);
            node = to[at + sym];
        }
    }

    /**
     * Raw, a normally ended invocation: the head, then the blocks after
     * ENTRY as one bit field per choice ({@link Tables#rawHopBits}), the same
     * bits {@link #walk} and a field per block give; an invocation with
     * every digit in its state word is looked up in the walk cache first,
     * which keeps the bits after the head when they fit in 64. False
     * (nothing written) for a method whose fields do not fit in 64 bits.
     */
    private boolean rawNormal(ThreadState ts, int m, long[] b, int off, int n, long state) {
        if (!t.rawHopsFit[m]) return false;
        BitOut o = ts.block;
        int h = cacheSlot(m, state);
        if (n == 0 && cacheMethod[h] == m + 1 && cacheDigits[h] == state) {
            o.put(m, t.headBits);
            o.put(cacheBits[h], cacheLen[h]);
            return true;
        }
        // The walk first: a record it refuses leaves no bits in the block.
        walkChoices(m, b, off, n, state);
        o.put(m, t.headBits);
        long start = o.bits;
        o.put(t.rawStartBits[m], t.rawStartLen[m]);
        int[] base = t.hopBase[m], lens = t.rawHopLen[m];
        long[] fields = t.rawHopBits[m];
        for (int i = 0; i < notedLen; i += 2) {
            int at = base[noted[i]] + noted[i + 1];
            o.put(fields[at], lens[at]);
        }
        long len = o.bits - start;
        if (n == 0 && len <= 64) {
            cacheMethod[h] = m + 1;
            cacheDigits[h] = state;
            cacheBits[h] = o.lastBits((int) len);
            cacheLen[h] = (int) len;
        }
        return true;
    }

    /**
     * Replays the choice digits of method {@code m} from ENTRY: fills
     * {@link #noted} (and {@link #nodes}, the blocks after ENTRY, when asked).
     * An aborted record stops where the digits end at block {@code cur}, then
     * follows the fixed route to EXIT; returns the blocks reached before
     * that completion (-1 for a normal end).
     */
    private int walk(int m, long[] b, int off, int n, long state, boolean aborted, int sh, int cur, boolean wantNodes) {
        notedLen = 0;
        nodesLen = 0;
        int[][] succ = t.succ[m];
        int exit = t.exit[m];
        int node = t.entry[m];
        int len = 0;
        startDigits(b, off, n, state);
        int[] chainEnd = wantNodes ? null : t.chainEnd[m];
        int[] chainLen = wantNodes ? null : t.chainLen[m];
        while (true) {
            boolean spent = digitIndex == n && digitUsed == sh;
            if (aborted && spent && node == cur) break;
            if (chainEnd != null && !(aborted && spent) && succ[node].length == 1) {
                // A run of blocks with one successor each: jump to its end.
                len += chainLen[node];
                node = chainEnd[node];
                continue;
            }
            if (node == exit) {
                if (aborted) throw new IllegalStateException("method " + m + ": digits reach EXIT before the abort block " + cur);
                break;
            }
            int[] s = succ[node];
            int k = s.length, next;
            if (k == 1) {
                next = s[0];
            } else if (k == 0) {
                throw new IllegalStateException("method " + m + ": block " + node + " has no successor");
            } else {
                if (aborted && spent) throw new IllegalStateException("method " + m + ": digits end at block " + node + ", not at " + cur);
                int sym = nextDigit(m, node, k);
                note(node, sym);
                next = s[sym];
            }
            if (wantNodes) addNode(next);
            len++;
            node = next;
        }
        if (!aborted) return -1;
        int realLen = len;
        while (node != exit) {
            int next = t.toExit[m][node];
            int[] s = succ[node];
            if (s.length > 1) note(node, indexOf(s, next));
            if (wantNodes) addNode(next);
            node = next;
        }
        return realLen;
    }

    /** Bits the thread's current block holds (its records, or its coder's words and references). */
    long blockBits(ThreadState ts) {
        long bits = ts.block.bits;
        if (ts.coder != null) bits += (long) ts.coder.words.size * width;
        return bits;
    }

    /**
     * Ends the thread's block: appends the section lengths to {@code head}
     * and returns the body (records bits; or references then words; or
     * words), restarting the thread's coder.
     */
    BitOut finishBlock(ThreadState ts, BitOut head) {
        body.reset();
        BitOut rec = ts.block;
        if (!t.context) {
            head.varint(rec.bits);
            rec.align();
            body.copyFrom(rec);
        }
        rec.reset();
        if (t.stream) {
            if (ts.coder == null) ts.coder = new Coder(t);
            ts.coder.finish();
            LongList w = ts.coder.words;
            // Context: the word count is the last header field; stream: it follows the heads.
            if (t.context) head.varint(w.size);
            else body.varint(w.size);
            for (int i = 0; i < w.size; i++) body.put(w.values[i], width);
            body.align();
            ts.coder = new Coder(t);
        }
        return body;
    }
}
