// tracekit path-profiling runtime: the probes that instrumented methods call.
//
// Every instrumented method calls enter() once, visit() at the start of each
// basic block and exit() before each return. Per thread, invocations are kept
// on a stack; a visit to an exception handler pops (as aborted) every
// invocation above the handler's own. The trace log is written once, by a
// shutdown hook, so normal exit, System.exit and uncaught exceptions all
// produce it.
package tracekit.rt;

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;

public final class Rt {
    static final Tables TABLES = Tables.load();
    static final ArrayList<ThreadState> THREADS = new ArrayList<>();
    static final ThreadLocal<ThreadState> CURRENT = ThreadLocal.withInitial(Rt::newThread);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Rt::writeLog, "tracekit-paths-log"));
    }

    private Rt() {}

    static ThreadState newThread() {
        Thread t = Thread.currentThread();
        synchronized (THREADS) {
            ThreadState s = new ThreadState(THREADS.size(), t.getId(), t.getName(), TABLES);
            THREADS.add(s);
            return s;
        }
    }

    /** Starts an invocation of method {@code id}. */
    public static Inv enter(int id) {
        ThreadState ts = CURRENT.get();
        Inv inv = Inv.create(TABLES, ts, id);
        ts.push(inv);
        return inv;
    }

    /** Records that the invocation reached CFG node {@code node}. */
    public static void visit(Inv inv, int node) {
        ThreadState ts = inv.thread;
        if (ts.top() != inv) ts.unwindTo(inv);
        inv.step(node);
    }

    /** Ends the invocation normally (just before a return instruction). */
    public static void exit(Inv inv) {
        ThreadState ts = inv.thread;
        if (ts.top() != inv) ts.unwindTo(inv);
        inv.step(TABLES.exitNode(inv.method));
        ts.pop();
        ts.finish(inv, -1);
    }

    static void writeLog() {
        String path = System.getenv("TRACEKIT_PATHS_LOG");
        if (path == null || path.isEmpty()) path = "tracekit-paths.log";
        try (Writer w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(path), StandardCharsets.UTF_8), 1 << 16)) {
            w.write("tracekit-paths-log 1 scheme=" + TABLES.scheme + " width=" + TABLES.width + " inc=" + TABLES.inc + " bound=" + TABLES.bound + "\n");
            ArrayList<ThreadState> threads;
            synchronized (THREADS) { threads = new ArrayList<>(THREADS); }
            for (ThreadState ts : threads) {
                synchronized (ts) {
                    try {
                        ts.abortAll();
                    } catch (RuntimeException e) {
                        // A daemon thread still running at exit may change its stack under us.
                    }
                    ts.finishStream();
                    ts.closed = true;
                    w.write("thread " + ts.index + " " + ts.javaId + " " + ts.name.replace('\n', ' ') + "\n");
                    ts.records.writeTo(w);
                }
            }
        } catch (IOException e) {
            System.err.println("tracekit: cannot write path log " + path + ": " + e);
        }
    }
}
