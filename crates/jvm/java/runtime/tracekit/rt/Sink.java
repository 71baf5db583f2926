package tracekit.rt;

import java.io.*;
import java.util.ArrayList;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * The coder thread and the log files. Threads hand over full raw-record
 * buffers (in their own order); this thread codes them under the scheme
 * (RecordCoder) into per-thread blocks and writes each block as a chunk as
 * soon as it holds about 64 KiB, so memory stays bounded and a log cut off
 * by a crash keeps every block written before. The format is specified in
 * the tracekit-jvm crate (module log).
 */
final class Sink implements Runnable {
    static final byte[] MAGIC = {'t', 'k', 'p', 'a', 't', 'h', 's', '3'};
    static final byte[] SIDE_MAGIC = {'t', 'k', 'p', 'v', 'e', 'r', 'f', '2'};
    static final int END = 0, THREAD = 1, BLOCK = 2;
    /** A block is written once its coded part reaches this many bits. */
    static final long BLOCK_BITS = 1 << 19;
    /** Buffers waiting for the coder; a full queue makes the program's threads wait (bounded memory). */
    private static final int QUEUE = 64;

    private static final class Batch {
        final ThreadBuffer from;
        final long[] buf;
        final int len;

        Batch(ThreadBuffer from, long[] buf, int len) {
            this.from = from;
            this.buf = buf;
            this.len = len;
        }
    }

    private static final Batch STOP = new Batch(null, null, 0);

    /** The program's tables: loaded by the coder thread before it codes anything (null until then, and if they cannot be read). */
    Tables t;
    private final String path;
    private OutputStream out;
    private OutputStream side;
    private final ArrayBlockingQueue<Batch> queue = new ArrayBlockingQueue<>(QUEUE);
    /** Coded buffers of the full size, for the threads to fill again. */
    private final ArrayBlockingQueue<long[]> spares = new ArrayBlockingQueue<>(QUEUE + 8);
    private final Thread worker;
    private RecordCoder coder;
    /** The coder's state of each program thread, by its index (made here, on the coder thread). */
    private ThreadState[] states = new ThreadState[8];
    private final BitOut head = new BitOut();
    private boolean failed;

    /** Starts the coder thread; it uses {@code t}, or loads the jar's tables when it is null. */
    Sink(Tables t, String path) {
        this.t = t;
        this.path = path;
        worker = new Thread(this, "tracekit-paths-coder");
        worker.setDaemon(true);
        worker.start();
    }

    static Sink open() {
        String path = System.getenv("TRACEKIT_PATHS_LOG");
        if (path == null || path.isEmpty()) path = "tracekit-paths.log";
        return new Sink(null, path);
    }

    /**
     * Coder thread, first thing: the tables, the coder, the log's header.
     * False when the tables cannot be read; then nothing is written and
     * the records are dropped (the program runs on).
     */
    private boolean start() {
        if (t == null) {
            try {
                t = Tables.load();
            } catch (RuntimeException e) {
                System.err.println(e.getMessage() + "; no path log is written");
                failed = true;
                return false;
            }
        }
        coder = new RecordCoder(t);
        try {
            out = new BufferedOutputStream(new FileOutputStream(path), 1 << 16);
            head.reset();
            head.varint(t.schemeId);
            head.varint(t.context ? 2 : t.stream ? 1 : 0);
            head.varint(t.width);
            head.varint(t.inc);
            head.varint(t.bound);
            head.varint(t.methodCount());
            head.varint(t.fingerprint);
            // The run's identity, also in the sidecar: a stale sidecar is never taken for this log's.
            long run = (System.nanoTime() ^ System.currentTimeMillis() * 0x9E3779B97F4A7C15L) >>> 1;
            head.varint(run);
            out.write(MAGIC);
            head.writeTo(out);
            if (t.verify) {
                side = new BufferedOutputStream(new FileOutputStream(path + ".verify"), 1 << 16);
                side.write(SIDE_MAGIC);
                head.reset();
                head.varint(run);
                head.writeTo(side);
            }
        } catch (IOException e) {
            fail(e);
        }
        return true;
    }

    private void fail(Exception e) {
        if (!failed) System.err.println("tracekit: cannot write path log " + path + ": " + e);
        failed = true;
    }

    /** A coded buffer of {@code size} longs to fill again, or null (then the caller makes one). */
    long[] spare(int size) {
        return size == ThreadBuffer.MAX_BUFFER ? spares.poll() : null;
    }

    /** Queues a thread's filled buffer (waits while the coder is behind). */
    void submit(ThreadBuffer from, long[] buf, int len) {
        put(new Batch(from, buf, len));
    }

    /** Coder thread: its state for the thread of {@code from}, made on the thread's first batch. */
    ThreadState state(ThreadBuffer from) {
        int i = from.index;
        if (i >= states.length) states = java.util.Arrays.copyOf(states, Math.max(i + 1, states.length * 2));
        ThreadState ts = states[i];
        if (ts == null) states[i] = ts = new ThreadState(from, t);
        return ts;
    }

    private void put(Batch b) {
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(b);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    @Override
    public void run() {
        boolean ready = start();
        while (true) {
            Batch b;
            try {
                b = queue.take();
            } catch (InterruptedException e) {
                continue;
            }
            if (b == STOP) return;
            if (!ready) continue;
            code(b);
            if (b.buf.length == ThreadBuffer.MAX_BUFFER) spares.offer(b.buf);
        }
    }

    /**
     * Buffer longs per {@link #codeSome} call (a few dozen records): the
     * JIT compiles a method by its calls and its loops' turns, and while
     * the program keeps the compilers busy its thresholds grow with their
     * queues. A batch loop entered a thousand times a run could stay
     * interpreted for seconds (seen on HSQLDB); a call per few dozen
     * records gets it compiled early.
     */
    private static final int CHUNK = 64;

    private void code(Batch b) {
        ThreadState ts = state(b.from);
        int p = 0;
        while (p < b.len && !ts.broken) p = codeSome(ts, b.buf, p, Math.min(b.len, p + CHUNK), b.len);
    }

    /** Codes the records that start in buf[p..stop) (the last may run on to end); returns where the next one starts. */
    private int codeSome(ThreadState ts, long[] buf, int p, int stop, int end) {
        while (p < stop && !ts.broken) {
            try {
                int q = coder.codeRun(ts, buf, p, end, BLOCK_BITS);
                p = q > p ? q : coder.code(ts, buf, p);
            } catch (RuntimeException e) {
                ts.broken = true;
                System.err.println("tracekit: thread " + ts.name + ": dropping records after a bad one: " + e);
                return end;
            }
            if (coder.blockBits(ts) >= BLOCK_BITS) writeBlock(ts);
        }
        return p;
    }

    /** Writes the thread's current block (if any) as a chunk and starts the next one. */
    void writeBlock(ThreadState ts) {
        if (ts.blockCount == 0) return;
        try {
            if (!ts.announced) {
                head.reset();
                head.put(THREAD, 8);
                head.varint(ts.index);
                head.varint(ts.javaId);
                byte[] name = ts.name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                head.varint(name.length);
                if (!failed) {
                    head.writeTo(out);
                    out.write(name);
                }
                ts.announced = true;
            }
            head.reset();
            head.put(BLOCK, 8);
            head.varint(ts.index);
            head.varint(ts.blockCount);
            BitOut body = coder.finishBlock(ts, head);
            if (!failed) {
                head.writeTo(out);
                body.writeTo(out);
            }
            if (side != null) {
                ts.sidecar.align();
                head.reset();
                head.put(BLOCK, 8);
                head.varint(ts.index);
                head.varint(ts.blockCount);
                head.varint(ts.sidecar.byteLen());
                if (!failed) {
                    head.writeTo(side);
                    ts.sidecar.writeTo(side);
                }
                ts.sidecar.reset();
            }
        } catch (IOException e) {
            fail(e);
        }
        ts.blockCount = 0;
    }

    /** Shutdown: codes what is queued, writes every thread's last block and the end mark. */
    void finish(ArrayList<ThreadBuffer> threads) {
        put(STOP);
        try {
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (coder == null) return;
        for (ThreadBuffer from : threads) {
            if (from.index < states.length && states[from.index] != null) writeBlock(states[from.index]);
        }
        try {
            if (!failed) {
                out.write(END);
                out.close();
            }
            if (side != null) {
                side.write(END);
                side.close();
            }
        } catch (IOException e) {
            fail(e);
        }
    }
}
