package tracekit.rt;

import java.io.*;
import java.nio.charset.StandardCharsets;

/**
 * Test harness: encodes given paths with the same Inv classes the probes use,
 * so the Rust test suite can check the in-JVM encoders against the Rust
 * decoders bit for bit. Usage: VectorCheck TABLES < paths, one path per line:
 * "METHOD N1 N2 … [a]" (nodes after ENTRY; a trailing "a" marks an aborted
 * invocation, completed to EXIT as the runtime does; "A LEN" instead: the
 * nodes are the whole completed path of an invocation that ended by an
 * exception after LEN nodes). Prints one record line
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
            boolean given = f.length >= 3 && f[f.length - 2].equals("A");
            int n = aborted ? f.length - 1 : given ? f.length - 2 : f.length;
            int method = Integer.parseInt(f[0]);
            Inv inv = Inv.create(t, ts, method);
            ts.push(inv);
            for (int i = 1; i < n; i++) inv.step(Integer.parseInt(f[i]));
            int realLen = -1;
            if (aborted) {
                realLen = inv.length;
                ThreadState.complete(t, inv);
            }
            if (given) realLen = Integer.parseInt(f[f.length - 1]);
            ts.pop();
            if (t.context) {
                if (ts.streamCoder == null) ts.streamCoder = new Coder(t);
                if (ts.context == null) ts.context = new CtxModel(ts);
                ((AdapInv) inv).codeContext(ts.context, ts.streamCoder, realLen);
                continue;
            }
            if (t.stream) {
                if (ts.streamCoder == null) ts.streamCoder = new Coder(t);
                ((AdapInv) inv).codeInto(ts.streamCoder);
            }
            RecordLog log = new RecordLog();
            log.begin(method, realLen, inv.nested);
            inv.emitTo(log);
            log.end();
            log.writeTo(out);
        }
        if (t.context) {
            if (ts.streamCoder == null) ts.streamCoder = new Coder(t);
            if (ts.context == null) ts.context = new CtxModel(ts);
            ts.finishStream();
            ts.records.writeTo(out);
        } else if (ts.streamCoder != null) {
            ts.streamCoder.finish();
            RecordLog log = new RecordLog();
            log.streamWords(ts.streamCoder.words);
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
