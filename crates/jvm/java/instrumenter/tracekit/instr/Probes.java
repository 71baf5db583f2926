package tracekit.instr;

import java.util.*;
import org.objectweb.asm.*;
import org.objectweb.asm.tree.*;

/**
 * Compiles one method's probes into its bytecode.
 *
 * Locals added: the path state (a long: BLPP's or PAP's register, or the
 * current word of AdapTracer's choice digits), the digit shift, the spill
 * array and its length (words a full local could not hold), the current
 * block (for the catch-all handler), and with verification the blocks
 * reached. Work on a CFG edge u→w (from the plan) goes where only that
 * transfer runs it: after a block's last instruction for a fall-through,
 * before a goto or a return, or in a trampoline the branch, switch case or
 * exception-table entry is pointed at. Ops:
 *   D sym bits  — digit: if sh > 64 - bits spill the word; state |= sym << sh; sh += bits
 *   d sym bits  — the same where no path reaches the edge with sh > 64 - bits
 *                 (no cycle before it): no test, no spill code for the JIT
 *   A v         — BLPP add: state += v
 *   X v         — BLPP emit (back edge or DAG cut): spill state + v; state = 0
 *   P k idx lim — PAP: if state ≤u lim then state = state·k + idx, else
 *                 spill (state, u) as a breakpoint and state = idx
 *   p k idx lim — the same where no path reaches the edge with state > lim
 *                 (no cycle before it): state = state·k + idx alone
 * Every return calls Rt.exit; a catch-all handler (after the super() call in
 * a constructor) calls Rt.abort with the current block and rethrows. A
 * method of one block with no edge work gets the short form instead (see
 * straight()): Rt.exit0 and Rt.abort0, no locals.
 */
final class Probes {
    static final String RT = "tracekit/rt/Rt";

    private final String cls;
    private final MethodNode mn;
    private final Instrument.MethodPlan plan;
    private final boolean verify;
    private final List<AbstractInsnNode> real = new ArrayList<>();
    private final Map<AbstractInsnNode, Integer> index = new HashMap<>();
    /** Node of each real instruction (block b is node b + 1). */
    private int[] nodeOf;
    private LabelNode[] blockLabel;
    private int state, sh, spill, n, cur, vnodes, vlen;
    private final InsnList trampolines = new InsnList();
    /** Trampolines of edges before a constructor's super() call: outside the catch-all, where `this` is uninitialized. */
    private final InsnList early = new InsnList();
    private int superCall = -1;
    private final Map<Long, LabelNode> trampolineOf = new HashMap<>();

    Probes(String cls, MethodNode mn, Instrument.MethodPlan plan, boolean verify) {
        this.cls = cls;
        this.mn = mn;
        this.plan = plan;
        this.verify = verify;
    }

    static AbstractInsnNode push(int v) {
        if (v >= -1 && v <= 5) return new InsnNode(Opcodes.ICONST_0 + v);
        if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) return new IntInsnNode(Opcodes.BIPUSH, v);
        if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) return new IntInsnNode(Opcodes.SIPUSH, v);
        return new LdcInsnNode(v);
    }

    static AbstractInsnNode pushLong(long v) {
        if (v == 0 || v == 1) return new InsnNode(Opcodes.LCONST_0 + (int) v);
        return new LdcInsnNode(v);
    }

    private int exitNode() {
        return plan.leaders.length + 1;
    }

    void apply() {
        for (AbstractInsnNode x : mn.instructions) {
            if (x.getOpcode() >= 0) {
                index.put(x, real.size());
                real.add(x);
            }
        }
        if (real.size() != plan.insnCount)
            throw new IllegalStateException(cls + "." + mn.name + mn.desc + ": plan expects " + plan.insnCount + " instructions, ASM sees " + real.size());
        if (plan.leaders.length == 1 && plan.edges.isEmpty()) {
            straight();
            return;
        }
        int blocks = plan.leaders.length;
        nodeOf = new int[real.size()];
        for (int b = 0; b < blocks; b++) {
            int end = b + 1 < blocks ? plan.leaders[b + 1] : real.size();
            for (int i = plan.leaders[b]; i < end; i++) nodeOf[i] = b + 1;
        }
        state = mn.maxLocals;
        sh = state + 2;
        spill = sh + 1;
        n = spill + 1;
        cur = n + 1;
        vnodes = cur + 1;
        vlen = vnodes + 1;
        mn.maxLocals = vlen + 1;
        superCall = superCallIndex();
        // Block starts: a label (for exception ranges), the current block, verification.
        blockLabel = new LabelNode[blocks + 1];
        for (int b = 0; b < blocks; b++) {
            InsnList at = new InsnList();
            blockLabel[b] = new LabelNode();
            at.add(blockLabel[b]);
            at.add(push(b + 1));
            at.add(new VarInsnNode(Opcodes.ISTORE, cur));
            if (verify) {
                at.add(new VarInsnNode(Opcodes.ALOAD, vnodes));
                at.add(new VarInsnNode(Opcodes.ILOAD, vlen));
                at.add(push(b + 1));
                at.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "node", "([III)[I", false));
                at.add(new VarInsnNode(Opcodes.ASTORE, vnodes));
                at.add(new IincInsnNode(vlen, 1));
            }
            mn.instructions.insertBefore(real.get(plan.leaders[b]), at);
        }
        LabelNode codeEnd = new LabelNode();
        mn.instructions.insert(real.get(real.size() - 1), codeEnd);
        blockLabel[blocks] = codeEnd;
        for (int b = 0; b < blocks; b++) edgesOf(b + 1);
        splitHandlers();
        // The catch-all: after the super() call in a constructor, else from the first block.
        LabelNode from = new LabelNode();
        if (superCall >= 0) mn.instructions.insert(real.get(superCall), from);
        else mn.instructions.insertBefore(blockLabel[0], from);
        LabelNode to = new LabelNode();
        LabelNode handler = new LabelNode();
        mn.instructions.add(trampolines);
        mn.instructions.add(to);
        mn.instructions.add(early);
        mn.instructions.add(handler);
        InsnList h = new InsnList();
        if (verify) h.add(verifyCall());
        h.add(push(plan.id));
        h.add(new VarInsnNode(Opcodes.LLOAD, state));
        h.add(new VarInsnNode(Opcodes.ILOAD, sh));
        h.add(new VarInsnNode(Opcodes.ALOAD, spill));
        h.add(new VarInsnNode(Opcodes.ILOAD, n));
        h.add(new VarInsnNode(Opcodes.ILOAD, cur));
        h.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "abort", "(IJI[JII)V", false));
        h.add(new InsnNode(Opcodes.ATHROW));
        mn.instructions.add(h);
        mn.tryCatchBlocks.add(new TryCatchBlockNode(from, to, handler, null));
        InsnList prologue = new InsnList();
        prologue.add(new InsnNode(Opcodes.LCONST_0));
        prologue.add(new VarInsnNode(Opcodes.LSTORE, state));
        prologue.add(new InsnNode(Opcodes.ICONST_0));
        prologue.add(new VarInsnNode(Opcodes.ISTORE, sh));
        prologue.add(new InsnNode(Opcodes.ACONST_NULL));
        prologue.add(new VarInsnNode(Opcodes.ASTORE, spill));
        prologue.add(new InsnNode(Opcodes.ICONST_0));
        prologue.add(new VarInsnNode(Opcodes.ISTORE, n));
        prologue.add(new InsnNode(Opcodes.ICONST_0));
        prologue.add(new VarInsnNode(Opcodes.ISTORE, cur));
        prologue.add(new InsnNode(Opcodes.ACONST_NULL));
        prologue.add(new VarInsnNode(Opcodes.ASTORE, vnodes));
        prologue.add(new InsnNode(Opcodes.ICONST_0));
        prologue.add(new VarInsnNode(Opcodes.ISTORE, vlen));
        mn.instructions.insert(prologue);
    }

    /**
     * A method of one block whose edges do no work: its only path is the
     * method itself, so it needs no locals. Each return calls Rt.exit0 with
     * the method's id, and a catch-all handler Rt.abort0 (with verification,
     * each after Rt.verify1): a getter grows by 13 bytes instead of about
     * 60, and stays under the JIT compilers' inlining limit for small
     * methods.
     */
    private void straight() {
        superCall = superCallIndex();
        for (AbstractInsnNode x : real) {
            int op = x.getOpcode();
            if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                InsnList at = new InsnList();
                if (verify) at.add(verify1());
                at.add(push(plan.id));
                at.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "exit0", "(I)V", false));
                mn.instructions.insertBefore(x, at);
            }
        }
        LabelNode from = new LabelNode();
        if (superCall >= 0) mn.instructions.insert(real.get(superCall), from);
        else mn.instructions.insert(from);
        LabelNode to = new LabelNode();
        LabelNode handler = new LabelNode();
        mn.instructions.add(to);
        mn.instructions.add(handler);
        if (verify) mn.instructions.add(verify1());
        mn.instructions.add(push(plan.id));
        mn.instructions.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "abort0", "(I)V", false));
        mn.instructions.add(new InsnNode(Opcodes.ATHROW));
        mn.tryCatchBlocks.add(new TryCatchBlockNode(from, to, handler, null));
    }

    /** In a constructor, the instruction index of the super()/this() call (-1 otherwise or when not found). */
    private int superCallIndex() {
        if (!mn.name.equals("<init>")) return -1;
        int pending = 0;
        for (int i = 0; i < real.size(); i++) {
            AbstractInsnNode x = real.get(i);
            if (x.getOpcode() == Opcodes.NEW) pending++;
            if (x.getOpcode() == Opcodes.INVOKESPECIAL && ((MethodInsnNode) x).name.equals("<init>")) {
                if (pending == 0) return i;
                pending--;
            }
        }
        return -1;
    }

    private int blockOfLabel(LabelNode l) {
        AbstractInsnNode x = l;
        while (x != null && (x.getOpcode() < 0 || !index.containsKey(x))) x = x.getNext();
        if (x == null) throw new IllegalStateException("label past the code");
        return nodeOf[index.get(x)];
    }

    private long[] work(int u, int w) {
        return plan.edges.get(((long) u << 32) | w);
    }

    /** A label that runs the work of u→w, then continues at {@code target}. */
    private LabelNode trampoline(int u, int w, long[] op, LabelNode target) {
        long key = ((long) u << 32) | w;
        LabelNode t = trampolineOf.get(key);
        if (t != null) return t;
        t = new LabelNode();
        trampolineOf.put(key, t);
        int b = u - 1;
        int lastIdx = (b + 1 < plan.leaders.length ? plan.leaders[b + 1] : real.size()) - 1;
        InsnList list = lastIdx < superCall ? early : trampolines;
        list.add(t);
        list.add(code(u, op));
        list.add(new JumpInsnNode(Opcodes.GOTO, target));
        return t;
    }

    private void edgesOf(int u) {
        int b = u - 1;
        int lastIdx = (b + 1 < plan.leaders.length ? plan.leaders[b + 1] : real.size()) - 1;
        AbstractInsnNode last = real.get(lastIdx);
        int op = last.getOpcode();
        if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
            InsnList at = new InsnList();
            long[] wk = work(u, exitNode());
            if (wk != null) at.add(code(u, wk));
            if (verify) at.add(verifyCall());
            at.add(push(plan.id));
            at.add(new VarInsnNode(Opcodes.LLOAD, state));
            at.add(new VarInsnNode(Opcodes.ALOAD, spill));
            at.add(new VarInsnNode(Opcodes.ILOAD, n));
            at.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "exit", "(IJ[JI)V", false));
            mn.instructions.insertBefore(last, at);
            return;
        }
        if (op == Opcodes.ATHROW) return;
        if (last instanceof JumpInsnNode) {
            JumpInsnNode j = (JumpInsnNode) last;
            int w = blockOfLabel(j.label);
            long[] wk = work(u, w);
            if (op == Opcodes.GOTO) {
                if (wk != null) mn.instructions.insertBefore(last, code(u, wk));
                return;
            }
            if (wk != null) j.label = trampoline(u, w, wk, j.label);
            fallThrough(u, lastIdx);
            return;
        }
        if (last instanceof TableSwitchInsnNode) {
            TableSwitchInsnNode s = (TableSwitchInsnNode) last;
            s.dflt = caseLabel(u, s.dflt);
            for (int i = 0; i < s.labels.size(); i++) s.labels.set(i, caseLabel(u, s.labels.get(i)));
            return;
        }
        if (last instanceof LookupSwitchInsnNode) {
            LookupSwitchInsnNode s = (LookupSwitchInsnNode) last;
            s.dflt = caseLabel(u, s.dflt);
            for (int i = 0; i < s.labels.size(); i++) s.labels.set(i, caseLabel(u, s.labels.get(i)));
            return;
        }
        fallThrough(u, lastIdx);
    }

    private LabelNode caseLabel(int u, LabelNode l) {
        int w = blockOfLabel(l);
        long[] wk = work(u, w);
        return wk == null ? l : trampoline(u, w, wk, l);
    }

    private void fallThrough(int u, int lastIdx) {
        if (lastIdx + 1 >= real.size()) return;
        long[] wk = work(u, u + 1);
        if (wk != null) mn.instructions.insert(real.get(lastIdx), code(u, wk));
    }

    /** Exception-table entries become one range per block, pointed at a trampoline where the edge has work. */
    private void splitHandlers() {
        List<TryCatchBlockNode> out = new ArrayList<>();
        for (TryCatchBlockNode tcb : mn.tryCatchBlocks) {
            int hb = blockOfLabel(tcb.handler);
            int start = index.get(firstReal(tcb.start));
            AbstractInsnNode e = firstReal(tcb.end);
            int end = e == null ? real.size() : index.get(e);
            LabelNode runStart = null, runTarget = null;
            for (int i = start; i < end; i++) {
                if (i != start && nodeOf[i] == nodeOf[i - 1]) continue;
                int u = nodeOf[i];
                long[] wk = work(u, hb);
                LabelNode target = wk == null ? tcb.handler : trampoline(u, hb, wk, tcb.handler);
                if (target != runTarget) {
                    if (runStart != null) out.add(new TryCatchBlockNode(runStart, blockLabel[u - 1], runTarget, tcb.type));
                    runStart = blockLabel[u - 1];
                    runTarget = target;
                }
            }
            if (runStart != null) {
                LabelNode endLabel = end >= real.size() ? blockLabel[plan.leaders.length] : blockLabel[nodeOf[end] - 1];
                TryCatchBlockNode last = new TryCatchBlockNode(runStart, endLabel, runTarget, tcb.type);
                last.visibleTypeAnnotations = tcb.visibleTypeAnnotations;
                out.add(last);
            }
        }
        mn.tryCatchBlocks = out;
    }

    private AbstractInsnNode firstReal(LabelNode l) {
        AbstractInsnNode x = l;
        while (x != null && !index.containsKey(x)) x = x.getNext();
        return x;
    }

    private InsnList verify1() {
        InsnList v = new InsnList();
        v.add(push(plan.id));
        v.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "verify1", "(I)V", false));
        return v;
    }

    private InsnList verifyCall() {
        InsnList v = new InsnList();
        v.add(push(plan.id));
        v.add(new VarInsnNode(Opcodes.ALOAD, vnodes));
        v.add(new VarInsnNode(Opcodes.ILOAD, vlen));
        v.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "verify", "(I[II)V", false));
        return v;
    }

    private void spillLong(InsnList c) {
        // spill = Rt.spill(spill, n, <long on stack>); n++
        c.add(new VarInsnNode(Opcodes.ALOAD, spill));
        c.add(new InsnNode(Opcodes.DUP_X2));
        c.add(new InsnNode(Opcodes.POP));
        c.add(new VarInsnNode(Opcodes.ILOAD, n));
        c.add(new InsnNode(Opcodes.DUP_X2));
        c.add(new InsnNode(Opcodes.POP));
        c.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "spill", "([JIJ)[J", false));
        c.add(new VarInsnNode(Opcodes.ASTORE, spill));
        c.add(new IincInsnNode(n, 1));
    }

    /** The bytecode of one edge's work (leaves the operand stack as it found it). */
    private InsnList code(int u, long[] op) {
        InsnList c = new InsnList();
        switch ((char) op[0]) {
            case 'D':
            case 'd': {
                int sym = (int) op[1], bits = (int) op[2];
                if (op[0] == 'D') {
                    LabelNode skip = new LabelNode();
                    c.add(new VarInsnNode(Opcodes.ILOAD, sh));
                    c.add(push(64 - bits));
                    c.add(new JumpInsnNode(Opcodes.IF_ICMPLE, skip));
                    c.add(new VarInsnNode(Opcodes.LLOAD, state));
                    spillLong(c);
                    c.add(new InsnNode(Opcodes.LCONST_0));
                    c.add(new VarInsnNode(Opcodes.LSTORE, state));
                    c.add(new InsnNode(Opcodes.ICONST_0));
                    c.add(new VarInsnNode(Opcodes.ISTORE, sh));
                    c.add(skip);
                }
                if (sym != 0) {
                    c.add(new VarInsnNode(Opcodes.LLOAD, state));
                    c.add(pushLong(sym));
                    c.add(new VarInsnNode(Opcodes.ILOAD, sh));
                    c.add(new InsnNode(Opcodes.LSHL));
                    c.add(new InsnNode(Opcodes.LOR));
                    c.add(new VarInsnNode(Opcodes.LSTORE, state));
                }
                c.add(new IincInsnNode(sh, bits));
                break;
            }
            case 'A':
                c.add(new VarInsnNode(Opcodes.LLOAD, state));
                c.add(pushLong(op[1]));
                c.add(new InsnNode(Opcodes.LADD));
                c.add(new VarInsnNode(Opcodes.LSTORE, state));
                break;
            case 'X':
                c.add(new VarInsnNode(Opcodes.LLOAD, state));
                if (op[1] != 0) {
                    c.add(pushLong(op[1]));
                    c.add(new InsnNode(Opcodes.LADD));
                }
                spillLong(c);
                c.add(new InsnNode(Opcodes.LCONST_0));
                c.add(new VarInsnNode(Opcodes.LSTORE, state));
                break;
            case 'p':
                c.add(new VarInsnNode(Opcodes.LLOAD, state));
                c.add(pushLong(op[1]));
                c.add(new InsnNode(Opcodes.LMUL));
                if (op[2] != 0) {
                    c.add(pushLong(op[2]));
                    c.add(new InsnNode(Opcodes.LADD));
                }
                c.add(new VarInsnNode(Opcodes.LSTORE, state));
                break;
            case 'P': {
                long k = op[1], idx = op[2], lim = op[3];
                LabelNode fits = new LabelNode(), done = new LabelNode();
                c.add(new VarInsnNode(Opcodes.LLOAD, state));
                c.add(pushLong(Long.MIN_VALUE));
                c.add(new InsnNode(Opcodes.LADD));
                c.add(pushLong(lim + Long.MIN_VALUE));
                c.add(new InsnNode(Opcodes.LCMP));
                c.add(new JumpInsnNode(Opcodes.IFLE, fits));
                c.add(new VarInsnNode(Opcodes.LLOAD, state));
                spillLong(c);
                c.add(pushLong(u));
                spillLong(c);
                c.add(pushLong(idx));
                c.add(new VarInsnNode(Opcodes.LSTORE, state));
                c.add(new JumpInsnNode(Opcodes.GOTO, done));
                c.add(fits);
                c.add(new VarInsnNode(Opcodes.LLOAD, state));
                c.add(pushLong(k));
                c.add(new InsnNode(Opcodes.LMUL));
                if (idx != 0) {
                    c.add(pushLong(idx));
                    c.add(new InsnNode(Opcodes.LADD));
                }
                c.add(new VarInsnNode(Opcodes.LSTORE, state));
                c.add(done);
                break;
            }
            default:
                throw new IllegalStateException("unknown edge op " + (char) op[0]);
        }
        return c;
    }
}
