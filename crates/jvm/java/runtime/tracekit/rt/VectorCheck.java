package tracekit.rt;

import java.io.*;
import java.nio.charset.StandardCharsets;

/**
 * Test harness: encodes given paths with the same Inv classes the probes use,
 * so the Rust test suite can check the in-JVM encoders against the Rust
 * decoders bit for bit. Usage: VectorCheck TABLES < paths, one path per line:
 * "METHOD N1 N2 … [a]" (nodes after ENTRY; a trailing "a" marks an aborted
 * invocation, completed to EXIT as the runtime does). Prints one record line
 * per path in the trace-log syntax, then for AdapTracer one line
 * "c METHOD COUNTERS…" per method with the thread's final counters.
 */
public final class VectorCheck {
    public static void main(String[] args) throws IOException {
        Tables t;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(new FileInputStream(args[0]), StandardCharsets.UTF_8))) {
            t = Tables.parse(r);
        }
        ThreadState ts = new ThreadState(0, 0, "check", t);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isEmpty()) continue;
            String[] f = line.split(" ");
            boolean aborted = f[f.length - 1].equals("a");
            int n = aborted ? f.length - 1 : f.length;
            int method = Integer.parseInt(f[0]);
            Inv inv = Inv.create(t, ts, method);
            ts.push(inv);
            for (int i = 1; i < n; i++) inv.step(Integer.parseInt(f[i]));
            int realLen = -1;
            if (aborted) {
                realLen = inv.length;
                ThreadState.complete(t, inv);
            }
            ts.pop();
            RecordLog log = new RecordLog();
            log.begin(method, realLen, inv.nested);
            inv.emitTo(log);
            log.end();
            log.writeTo(out);
        }
        // AdapTracer: the thread's counters after all invocations, per method.
        for (int m = 0; m < t.methodCount(); m++) {
            if (ts.counters[m] == null) continue;
            out.write("c " + m);
            for (int c : ts.counters[m]) out.write(" " + c);
            out.write("\n");
        }
        out.flush();
    }
}
