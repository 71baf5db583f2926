package tracekit.rt;

/**
 * The context stream's per-thread model: for every finished invocation its
 * method id, how it ended and its choices go through the thread's one
 * coder, predicted from the thread's event history (flags with candidates,
 * then fallbacks with the missed candidates excluded). Mirrors
 * tracekit_paths::context_stream bit for bit; the Rust module docs state
 * the rules.
 */
final class CtxModel {
    private static final int BUCKETS = 32;
    private static final int FLAG_INC = 32;
    private static final int FLAG_BOUND = 65535;
    private static final int FLAG_INIT_MAX = 64;
    private static final int METHOD_INC = 2;
    private static final long MAX_TOTAL = 1L << 20;
    private static final int SUCC_BITS = 12;
    private static final int SUCC_LIST = 8;
    private static final int RANK_INC = 4;

    private final ThreadState thread;
    private final Tables t;
    private final int inc;
    private final long bound;
    private final CtxPredictor pred = new CtxPredictor();
    /** The first decision of every invocation: a repeat of the predicted one? */
    final CtxRepeat repeat = new CtxRepeat();
    private final int[][] flags;
    /** Per method, at each choice block's first counter: the block's counter total (0: not computed yet). */
    private final long[][] totals;
    private final int[] globalFlags = filled(2 * BUCKETS);
    private final int[] methodFlags = filled(2 * (BUCKETS + 8));
    private final int[] endFlags = filled(2 * BUCKETS);
    private final int[] methodTable = new int[1 << 16];
    private int prevMethod = -1, prevMethod2 = -1;
    private final int[] methodCounts;
    /** Fenwick tree over methodCounts, and their total. */
    private final long[] countTree;
    private long methodTotal;
    private int seen;
    private final int[] newFlag = {1, 1};
    /** Successor lists of methods (ids + 1, most recent first), their flag and rank counters, distance counters of new ids. */
    private final int[] succLists = new int[SUCC_LIST << SUCC_BITS];
    private final int[] listFlag = {1, 1};
    private final int[] rankCounts = filled(SUCC_LIST);
    private final int[] distCounts = filled(32);
    private final int[] list = new int[SUCC_LIST];
    /** The ids seen so far (count > 0), ascending; the first {@code seen} entries are valid. */
    private final int[] sortedSeen;
    private final int[] endCounts;
    /** Candidates missed so far for the current event. */
    private final int[] missed = new int[4];
    private int missedCount;

    CtxModel(ThreadState thread) {
        this.thread = thread;
        this.t = thread.tables;
        this.inc = t.inc;
        this.bound = t.bound;
        int methods = t.methodCount();
        flags = new int[methods][];
        totals = new long[methods][];
        methodCounts = new int[methods + 1];
        countTree = new long[methods + 2];
        sortedSeen = new int[methods + 1];
        endCounts = filled(2 * methods);
    }

    private static int[] filled(int n) {
        int[] a = new int[n];
        java.util.Arrays.fill(a, 1);
        return a;
    }

    /** AdapTracer's counter update of c[off + s] among k counters. */
    private static void update(int[] c, int off, int k, int s, int inc, long bound) {
        long total = 0;
        for (int i = 0; i < k; i++) total += c[off + i];
        if (c[off + s] + (long) inc > bound || total + inc > MAX_TOTAL) {
            for (int i = 0; i < k; i++) c[off + i] = Math.max(1, c[off + i] >>> 1);
        }
        c[off + s] += inc;
    }

    /**
     * {@link #update} of the flag pair at c[p], c[p + 1] (inc FLAG_INC, bound
     * FLAG_BOUND). Both counters stay at most FLAG_BOUND, so their total
     * never reaches MAX_TOTAL and only the bound is checked.
     */
    private static void update2(int[] c, int p, boolean miss) {
        int s = miss ? p + 1 : p;
        if (c[s] + FLAG_INC > FLAG_BOUND) halve2(c, p);
        c[s] += FLAG_INC;
    }

    /**
     * {@link #update2} of an "as guessed" (the pair's first counter) without
     * branches: in the hot paths, a branch first taken after C2 compiled
     * them (here: the first halving) costs a deoptimisation and a recompile.
     * Pair counters are at least 1, and the first one is above 32768 when it
     * is halved, so neither needs the max(1, ...) there.
     */
    private static void hit2(int[] c, int p) {
        int h = (FLAG_BOUND - FLAG_INC - c[p]) >>> 31; // 1 when c[p] + FLAG_INC > FLAG_BOUND
        c[p] = (c[p] >>> h) + FLAG_INC;
        c[p + 1] = Math.max(1, c[p + 1] >>> h);
    }

    private static void halve2(int[] c, int p) {
        c[p] = Math.max(1, c[p] >>> 1);
        c[p + 1] = Math.max(1, c[p + 1] >>> 1);
    }

    private boolean excluded(int sym, int[] ex, int nEx) {
        for (int i = 0; i < nEx; i++) if (ex[i] == sym) return true;
        return false;
    }

    /** Codes {@code sym} among the k counters at c[off..] that are non-zero and not excluded. */
    private void pick(Coder coder, int[] c, int off, int k, int[] ex, int nEx, int sym) {
        long total = 0, cum = 0;
        int live = 0;
        for (int i = 0; i < k; i++) {
            if (c[off + i] == 0 || excluded(i, ex, nEx)) continue;
            live++;
            if (i < sym) cum += c[off + i];
            total += c[off + i];
        }
        if (live == 1) return;
        coder.encode(cum, c[off + sym], total);
    }

    private static void bit(Coder coder, int f0, int f1, boolean one) {
        if (one) coder.encode(f0, f1, (long) f0 + f1);
        else coder.encode(0, f0, (long) f0 + f1);
    }

    /**
     * Codes the flags of the slot's candidates, in order, while more than
     * one of its {@code symbols} is left; returns the index of the hit or -1
     * (the missed events are in {@link #missed}; a choice's fallback among
     * its block's counters at counts[base..] is then coded here too). The
     * candidates are the predictor's, and for a method id (kind METHOD) also
     * the order-2 and order-1 method table entries e2, e1 not already named.
     * Flag pairs are
     * at f[fbase + 2 * bucket]; a choice block's pair starts from the
     * global one and both are updated. One method for every slot kind: the
     * slow path of all of them, kept above C2's FreqInlineSize (325
     * bytecodes) so it is not inlined into the hot paths.
     */
    private int guess(Coder coder, int kind, int lo, int k, long symbols, int[] f, int fbase, int actual, int e2, int e1, int[] counts, int base) {
        CtxPredictor pr = pred;
        pr.candidates(kind, lo, k);
        if (kind == CtxPredictor.METHOD) {
            for (int level = 0; level < 2; level++) {
                int e = level == 0 ? e2 : e1;
                int ev = (e >>> 2) - 1;
                if (e == 0) continue;
                boolean dup = false;
                for (int i = 0; i < pr.count; i++) if (pr.events[i] == ev) dup = true;
                if (!dup) pr.push(ev, BUCKETS + 4 * level + (e & 3));
            }
        }
        boolean choice = kind == CtxPredictor.CHOICE;
        missedCount = 0;
        for (int i = 0; i < pr.count; i++) {
            if (symbols - missedCount <= 1) break;
            int ev = pr.events[i], b = pr.buckets[i];
            int p = fbase + 2 * b;
            if (choice && f[p] == 0) startFlags(f, p, b);
            boolean miss = actual != ev;
            long f0 = f[p], total = f0 + f[p + 1];
            if (miss) coder.encode(f0, total - f0, total);
            else coder.encode(0, f0, total);
            update2(f, p, miss);
            if (choice) update2(globalFlags, 2 * b, miss);
            if (!miss) return i;
            missed[missedCount++] = ev;
        }
        if (choice) {
            // No guess: the choice among the block's counters at counts[base..], the missed ones excluded.
            for (int i = 0; i < missedCount; i++) missed[i] = (missed[i] >>> 2) - lo;
            pick(coder, counts, base, k, missed, missedCount, (actual >>> 2) - lo);
        }
        return -1;
    }

    private static int succKey(int prev) {
        return (prev * 0x85EBCA6B) >>> (32 - SUCC_BITS);
    }

    /** Inserts a newly seen id at position p of {@link #sortedSeen} (before {@code seen} grows). */
    private void addSorted(int p, int id) {
        System.arraycopy(sortedSeen, p, sortedSeen, p + 1, seen - p);
        sortedSeen[p] = id;
    }

    private static int methodKey(int prev) {
        return (prev * 0x9E3779B1) >>> 16;
    }

    private static int methodKey2(int prev, int prev2) {
        return ((prev ^ prev2 * 0x85EBCA6B) + 1) * 0x9E3779B1 >>> 16;
    }

    private void addCount(int i, int d) {
        methodTotal += d;
        for (int x = i + 1; x < countTree.length; x += x & -x) countTree[x] += d;
    }

    /** Sum of methodCounts[0..i). */
    private long prefixCount(int i) {
        long s = 0;
        for (int x = i; x > 0; x -= x & -x) s += countTree[x];
        return s;
    }

    /** Codes method id {@code method} (the method count ends the stream). */
    void method(Coder coder, int method) {
        int symbols = methodCounts.length;
        int actual = (method << 2) | 1;
        int k2 = methodKey2(prevMethod, prevMethod2), k1 = methodKey(prevMethod);
        int b = pred.matchBucket(CtxPredictor.METHOD, 0, 0, actual);
        if (b >= 0) hit(coder, methodFlags, 2 * b);
        else methodSlow(coder, method, symbols, actual, k2, k1);
        methodTable[k2] = CtxPredictor.tableUpdate(methodTable[k2], actual);
        methodTable[k1] = CtxPredictor.tableUpdate(methodTable[k1], actual);
        touchSuccessor(method);
        prevMethod2 = prevMethod;
        prevMethod = method;
        if (method < symbols - 1) pred.record(actual);
    }

    /** Codes a method id the match model did not guess first: all candidates' flags, then the fallback. */
    private void methodSlow(Coder coder, int method, int symbols, int actual, int k2, int k1) {
        if (guess(coder, CtxPredictor.METHOD, 0, 0, symbols, methodFlags, 0, actual, methodTable[k2], methodTable[k1], null, 0) < 0) {
            methodFallback(coder, method, symbols);
        }
    }

    /** Codes "as guessed" under the flag pair at c[p], c[p + 1] and updates it. */
    private static void hit(Coder coder, int[] c, int p) {
        coder.encodeFirst(c[p], (long) c[p] + c[p + 1]);
        hit2(c, p);
    }

    /**
     * A method id no candidate guessed. Kept in one piece on purpose: above
     * C2's FreqInlineSize (325 bytecodes) it is never inlined into the hot
     * paths (split into small methods, C2 inlined them all and spent
     * hundreds of milliseconds compiling on Rhino).
     */
    private void methodFallback(Coder coder, int method, int symbols) {
        int seenLeft = seen - missedCount;
        boolean isNew = methodCounts[method] == 0;
        if (seenLeft != 0) {
            bit(coder, newFlag[0], newFlag[1], isNew);
            update2(newFlag, 0, isNew);
        }
        if (isNew && seen > 0) {
            // By the distance d to the nearest seen id, see the Rust docs.
            int p = java.util.Arrays.binarySearch(sortedSeen, 0, seen, method);
            p = -p - 1; // method is unseen: its insertion point
            int d = Integer.MAX_VALUE;
            if (p > 0) d = method - sortedSeen[p - 1];
            if (p < seen) d = Math.min(d, sortedSeen[p] - method);
            int nbits = 32 - Integer.numberOfLeadingZeros(symbols);
            int nb = 31 - Integer.numberOfLeadingZeros(Math.max(d, 1));
            pick(coder, distCounts, 0, nbits, missed, 0, nb);
            update(distCounts, 0, nbits, nb, RANK_INC, FLAG_BOUND);
            if (nb > 0) coder.encode(d - (1 << nb), 1, 1L << nb);
            // The unseen ids at distance exactly d, ascending: left of the first seen
            // id, inside gaps of at least 2d, right of the last one.
            int count = 0, index = 0;
            int first = sortedSeen[0], last = sortedSeen[seen - 1];
            if (first - d >= 0) {
                count++;
                if (first - d < method) index++;
            }
            for (int j = 1; j < seen; j++) {
                int a = sortedSeen[j - 1], b = sortedSeen[j];
                if (b - a < 2 * d) continue;
                int n = b - a == 2 * d ? 1 : 2;
                count += n;
                if (a + d < method) index++;
                if (n == 2 && b - d < method) index++;
            }
            if (last + d <= symbols - 1) {
                count++;
                if (last + d < method) index++;
            }
            if (count > 1) coder.encode(index, 1, count);
            addSorted(p, method);
            seen++;
        } else if (isNew) {
            if (symbols > 1) coder.encode(method, 1, symbols);
            addSorted(0, method);
            seen++;
        } else {
            for (int i = 0; i < missedCount; i++) missed[i] >>>= 2;
            // The methods that followed the previous one lately, most recent first.
            int at = succKey(prevMethod) * SUCC_LIST;
            int n = 0, pos = -1;
            for (int j = 0; j < SUCC_LIST; j++) {
                int e = succLists[at + j];
                if (e == 0 || excluded(e - 1, missed, missedCount)) continue;
                if (e - 1 == method) pos = n;
                list[n++] = e - 1;
            }
            int others = seenLeft - n;
            boolean inList;
            if (n == 0) {
                inList = false;
            } else if (others == 0) {
                inList = true;
            } else {
                bit(coder, listFlag[0], listFlag[1], pos < 0);
                update2(listFlag, 0, pos < 0);
                inList = pos >= 0;
            }
            if (inList) {
                pick(coder, rankCounts, 0, n, missed, 0, pos);
                update(rankCounts, 0, n, pos, RANK_INC, FLAG_BOUND);
            } else {
                long total = methodTotal, cum = prefixCount(method);
                for (int i = 0; i < missedCount + n; i++) {
                    int e = i < missedCount ? missed[i] : list[i - missedCount];
                    total -= methodCounts[e];
                    if (e < method) cum -= methodCounts[e];
                }
                if (others > 1) coder.encode(cum, methodCounts[method], total);
            }
        }
        if (methodCounts[method] + METHOD_INC > FLAG_BOUND || methodTotal + METHOD_INC > MAX_TOTAL) {
            for (int i = 0; i < symbols; i++) if (methodCounts[i] > 0) methodCounts[i] = Math.max(1, methodCounts[i] >>> 1);
            java.util.Arrays.fill(countTree, 0);
            methodTotal = 0;
            for (int i = 0; i < symbols; i++) addCount(i, methodCounts[i]);
        }
        methodCounts[method] += METHOD_INC;
        addCount(method, METHOD_INC);
    }

    /** Moves {@code method} to the front of the previous method's successor list. */
    private void touchSuccessor(int method) {
        int at = succKey(prevMethod) * SUCC_LIST;
        int end = SUCC_LIST - 1;
        for (int j = 0; j < SUCC_LIST; j++) {
            if (succLists[at + j] == method + 1) {
                end = j;
                break;
            }
        }
        for (int j = end; j > 0; j--) succLists[at + j] = succLists[at + j - 1];
        succLists[at] = method + 1;
    }

    /** Codes how an invocation of {@code m} ended: realLen -1 = normal return. */
    void end(Coder coder, int m, int realLen) {
        int code = realLen < 0 ? 0 : Math.min(realLen + 1, CtxPredictor.END_CODE_MAX);
        int actual = (code << 2) | 2;
        // Codes END_CODE_MAX never hold as a candidate: they take the slow path.
        int b = code < CtxPredictor.END_CODE_MAX ? pred.matchBucket(CtxPredictor.END, 0, 0, actual) : -1;
        if (b >= 0) hit(coder, endFlags, 2 * b);
        else endSlow(coder, m, realLen, actual);
        update2(endCounts, 2 * m, realLen >= 0);
        pred.record(actual);
    }

    /** An end the match model did not guess first. */
    private void endSlow(Coder coder, int m, int realLen, int actual) {
        if (guess(coder, CtxPredictor.END, 0, 0, Long.MAX_VALUE, endFlags, 0, actual, 0, 0, null, 0) < 0) {
            boolean normalMissed = false;
            for (int i = 0; i < missedCount; i++) if (missed[i] >>> 2 == 0) normalMissed = true;
            if (!normalMissed) bit(coder, endCounts[2 * m], endCounts[2 * m + 1], realLen >= 0);
            if (realLen >= 0) gamma(coder, realLen + 1);
        }
    }

    private static void gamma(Coder coder, int x) {
        int nb = 31 - Integer.numberOfLeadingZeros(x);
        for (int i = 0; i < nb; i++) coder.encode(1, 1, 2);
        coder.encode(0, 1, 2);
        for (int i = nb - 1; i >= 0; i--) coder.encode((x >>> i) & 1, 1, 2);
    }

    /**
     * Codes one finished invocation of method m: its id, how it ended
     * (realLen -1 = normal return), then its noted (node, symbol) choices.
     */
    void invocation(Coder coder, int m, int realLen, int[] noted, int notedLen, int[][] succ) {
        method(coder, m);
        end(coder, m, realLen);
        if (notedLen == 0) return;
        int[] counts = thread.methodCounters(m);
        long[] tot = totals[m];
        if (tot == null) totals[m] = tot = new long[counts.length];
        int[] f = flags[m];
        if (f == null) flags[m] = f = new int[t.adapChoiceNodes[m] * BUCKETS * 2];
        int[] bases = t.adapBase[m];
        int[] flagIndex = t.adapFlagIndex[m];
        int offset = t.adapOffset[m];
        for (int i = 0; i < notedLen; i += 2) {
            int v = noted[i];
            int base = bases[v];
            choice(coder, counts, tot, f, flagIndex[v] * BUCKETS * 2, base, offset + base, succ[v].length, noted[i + 1]);
        }
    }

    /** Codes the choice {@code sym} among k at a node whose counters start at counts[base] and flag pairs at f[fbase]. */
    private void choice(Coder coder, int[] counts, long[] tot, int[] f, int fbase, int base, int lo, int k, int sym) {
        int actual = (lo + sym) << 2;
        CtxPredictor pr = pred;
        int len = pr.len;
        // matchBucket, hit and update2 inlined by hand: before the JIT's
        // optimising tier (most short runs end earlier) calls are dear.
        boolean hit = len != 0 && pr.hist[pr.ptr & (CtxPredictor.RING - 1)] == actual;
        if (hit) {
            int b = 21; // 3 * 7 + 0: a long match, the order-6 table left alone
            if (len < 2048) {
                int agree = 0;
                if (len < CtxPredictor.LONG_MATCH) {
                    int ki = pr.kindex(CtxPredictor.CHOICE, lo);
                    pr.lastKindex = ki;
                    int entry = pr.ktable[ki], tev = (entry >>> 2) - 1;
                    if (entry != 0 && CtxPredictor.holds(CtxPredictor.CHOICE, lo, k, tev)) agree = tev != actual ? 1 : 2;
                }
                b = 3 * (31 - Integer.numberOfLeadingZeros(len >>> 4)) + agree;
            }
            int p = fbase + 2 * b;
            int f0 = f[p];
            if (f0 == 0) {
                startFlags(f, p, b);
                f0 = f[p];
            }
            coder.encodeFirst(f0, (long) f0 + f[p + 1]);
            hit2(f, p);
            hit2(globalFlags, 2 * b);
        } else {
            guess(coder, CtxPredictor.CHOICE, lo, k, k, f, fbase, actual, 0, 0, counts, base);
        }
        // update(counts, base, k, sym, inc, bound) with the block's total kept in tot[base].
        long total = tot[base];
        if (total == 0) total = sum(counts, base, k);
        if (counts[base + sym] + (long) inc > bound || total + inc > MAX_TOTAL) total = halve(counts, base, k);
        counts[base + sym] += inc;
        tot[base] = total + inc;
        if (hit) pr.recordHit(actual);
        else pr.record(actual);
    }

    private static long sum(int[] c, int off, int k) {
        long total = 0;
        for (int i = 0; i < k; i++) total += c[off + i];
        return total;
    }

    /** Halves the k counters at c[off..] (at least 1 each); returns their new total. */
    private static long halve(int[] c, int off, int k) {
        long total = 0;
        for (int i = 0; i < k; i++) total += c[off + i] = Math.max(1, c[off + i] >>> 1);
        return total;
    }

    /** A block's flag pair of bucket b, first used: started from the thread's global pair, scaled down. */
    private void startFlags(int[] f, int p, int b) {
        int g0 = globalFlags[2 * b], g1 = globalFlags[2 * b + 1];
        while (g0 + g1 > FLAG_INIT_MAX) {
            g0 = Math.max(1, g0 >>> 1);
            g1 = Math.max(1, g1 >>> 1);
        }
        f[p] = g0;
        f[p + 1] = g1;
    }
}
