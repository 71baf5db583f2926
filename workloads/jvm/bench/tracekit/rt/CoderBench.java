package tracekit.rt;

/**
 * The path runtime's coder thread alone (scripts/bench/paths-coder.sh):
 * full 16 K-long record buffers, made once and handed to a real Sink over
 * and over, as a program thread would hand them over. Compiled into the
 * runtime's package (it uses package-private classes) against the runtime
 * of an instrumented jar, whose tables it loads.
 *
 *   java -cp BENCH:INSTRUMENTED.jar tracekit.rt.CoderBench BATCHES KIND LOG
 *
 * KIND is "one" (one-long records of the program's one-path methods) or
 * "mixed" (half of them, half two-long records of any method ended
 * normally with a register: BLPP and PAP only, where any register value
 * codes), method ids drawn at random. Prints the nanoseconds per record of
 * each quarter of the batches; the last quarters are the coder at full
 * speed (the program side only copies 128 KiB per batch, so the coder is
 * the bottleneck).
 */
public final class CoderBench {
    private CoderBench() {}

    public static void main(String[] args) throws Exception {
        int batches = Integer.parseInt(args[0]);
        boolean mixed = args[1].equals("mixed");
        Tables t = Tables.load();
        Sink sink = new Sink(t, args[2]);
        ThreadBuffer from = new ThreadBuffer(0, Thread.currentThread());
        int methods = t.methodCount();
        // The one-path methods: no block with a choice of successors.
        int[] onePath = new int[methods];
        int onePaths = 0;
        for (int m = 0; m < methods; m++) {
            boolean one = true;
            for (int[] s : t.succ[m]) one &= s == null || s.length <= 1;
            if (one) onePath[onePaths++] = m;
        }
        long[] template = new long[ThreadBuffer.MAX_BUFFER];
        int len = 0, records = 0, id = 7;
        while (len + 2 <= template.length) {
            id = (id * 1103515245 + 12345) & 0x7fffffff;
            if (!mixed || (id & 1) == 0) {
                template[len++] = onePath[id % onePaths] | Rt.STRAIGHT;
            } else {
                template[len++] = id % methods;
                template[len++] = id & 0xFFFF;
            }
            records++;
        }
        int quarter = Math.max(1, batches / 4);
        long start = System.nanoTime(), count = 0;
        for (int b = 1; b <= batches; b++) {
            long[] buf = sink.spare(ThreadBuffer.MAX_BUFFER);
            if (buf == null) buf = new long[ThreadBuffer.MAX_BUFFER];
            System.arraycopy(template, 0, buf, 0, len);
            sink.submit(from, buf, len);
            count += records;
            if (b % quarter == 0) {
                long now = System.nanoTime();
                System.out.printf("%s records: %.1f ns/record over %d records%n", args[1], (now - start) / (double) count, count);
                start = now;
                count = 0;
            }
        }
        java.util.ArrayList<ThreadBuffer> all = new java.util.ArrayList<>();
        all.add(from);
        sink.finish(all);
    }
}
