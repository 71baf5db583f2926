// Instruments the classes of a jar with tracekit path probes.
//
// The Rust side (crate tracekit-jvm) parses the bytecode, builds each method's
// CFG and writes a plan: for every method, its id, the instruction indices
// where its basic blocks start and the work each CFG edge does (see Probes).
// This tool compiles that work into bytecode on the edges (local-variable
// arithmetic, runtime calls only at the end of an invocation and where a
// local word is full) and lets ASM recompute the StackMapTable frames, so the
// output passes the JVM verifier. Usage:
//   Instrument PLAN IN.jar OUT.jar RUNTIME_DIR RESOURCE_DIR [CLASSPATH...]
package tracekit.instr;

import java.io.*;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.*;
import java.util.*;
import java.util.jar.*;
import java.util.zip.*;
import org.objectweb.asm.*;
import org.objectweb.asm.tree.*;

public final class Instrument {

    static final class MethodPlan {
        int id;
        int insnCount;
        int[] leaders;
        /** Edge work, keyed by (from node << 32 | to node): op and its operands (see Probes). */
        final Map<Long, long[]> edges = new HashMap<>();
    }

    /** Plan-wide settings: record the verification sidecar. */
    static boolean verify;

    public static void main(String[] args) {
        if (args.length < 5) {
            System.err.println("usage: Instrument PLAN IN.jar OUT.jar RUNTIME_DIR RESOURCE_DIR [CLASSPATH...]");
            System.exit(2);
        }
        try {
            run(args);
        } catch (Throwable t) {
            // One line for the user, not a stack trace: the Rust side
            // prefixes the jar's name.
            String msg = t.getMessage();
            System.err.println("tracekit: error: " + t.getClass().getName() + (msg == null ? "" : ": " + msg));
            System.exit(1);
        }
    }

    static void run(String[] args) throws Exception {
        Map<String, Map<String, MethodPlan>> plan = readPlan(Paths.get(args[0]));
        List<URL> urls = new ArrayList<>();
        urls.add(new File(args[1]).toURI().toURL());
        for (int i = 5; i < args.length; i++) urls.add(new File(args[i]).toURI().toURL());
        ClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), Instrument.class.getClassLoader());
        int instrumented = 0, failed = 0;
        Set<String> written = new HashSet<>();
        try (JarFile in = new JarFile(args[1]);
             JarOutputStream out = new JarOutputStream(new BufferedOutputStream(new FileOutputStream(args[2])))) {
            for (Enumeration<JarEntry> en = in.entries(); en.hasMoreElements(); ) {
                JarEntry e = en.nextElement();
                String name = e.getName();
                if (e.isDirectory() || !written.add(name)) continue;
                String upper = name.toUpperCase(Locale.ROOT);
                if (upper.startsWith("META-INF/") && (upper.endsWith(".SF") || upper.endsWith(".RSA") || upper.endsWith(".DSA") || upper.endsWith(".EC"))) continue;
                byte[] data = in.getInputStream(e).readAllBytes();
                if (name.endsWith(".class")) {
                    String cls = name.substring(0, name.length() - 6);
                    Map<String, MethodPlan> methods = plan.get(cls);
                    if (methods != null) {
                        try {
                            data = instrumentClass(data, methods, loader);
                            instrumented++;
                        } catch (RuntimeException ex) {
                            failed++;
                            System.err.println("tracekit: left " + cls + " uninstrumented: " + ex);
                        }
                    }
                }
                out.putNextEntry(new JarEntry(name));
                out.write(data);
                out.closeEntry();
            }
            addTree(out, Paths.get(args[3]), written);
            addTree(out, Paths.get(args[4]), written);
        }
        System.err.println("tracekit: instrumented " + instrumented + " classes" + (failed > 0 ? ", " + failed + " left as they were" : ""));
    }

    static void addTree(JarOutputStream out, Path root, Set<String> written) throws IOException {
        List<Path> files = new ArrayList<>();
        try (var s = Files.walk(root)) { s.filter(Files::isRegularFile).forEach(files::add); }
        Collections.sort(files);
        for (Path p : files) {
            String name = root.relativize(p).toString().replace(File.separatorChar, '/');
            if (!written.add(name)) continue;
            out.putNextEntry(new JarEntry(name));
            out.write(Files.readAllBytes(p));
            out.closeEntry();
        }
    }

    static Map<String, Map<String, MethodPlan>> readPlan(Path file) throws IOException {
        Map<String, Map<String, MethodPlan>> plan = new HashMap<>();
        Map<String, MethodPlan> current = null;
        MethodPlan last = null;
        int lineNo = 0;
        for (String line : Files.readAllLines(file)) {
            lineNo++;
            String[] f = line.split("\t");
            if (f[0].equals("C")) {
                current = plan.computeIfAbsent(f[1], k -> new HashMap<>());
            } else if (f[0].equals("P")) {
                verify = f.length > 2 && f[2].equals("1");
            } else if (f[0].equals("E") && last != null) {
                long key = (Long.parseLong(f[1]) << 32) | Long.parseLong(f[2]);
                long[] op = new long[f.length - 3];
                op[0] = f[3].charAt(0);
                for (int i = 4; i < f.length; i++) op[i - 3] = Long.parseUnsignedLong(f[i]);
                last.edges.put(key, op);
            } else if (f[0].equals("M") && current != null) {
                MethodPlan m = new MethodPlan();
                last = m;
                m.id = Integer.parseInt(f[1]);
                m.insnCount = Integer.parseInt(f[4]);
                m.leaders = new int[f.length - 5];
                for (int i = 5; i < f.length; i++) m.leaders[i - 5] = Integer.parseInt(f[i]);
                current.put(f[2] + f[3], m);
            } else if (!line.isEmpty()) {
                throw new IOException(file + ": line " + lineNo + ": bad plan line");
            }
        }
        return plan;
    }

    static byte[] instrumentClass(byte[] data, Map<String, MethodPlan> methods, ClassLoader loader) {
        while (true) {
            try {
                return instrumentOnce(data, methods, loader);
            } catch (MethodTooLargeException e) {
                // The probes pushed one method past the JVM's 64 KiB: leave that one alone.
                if (methods.remove(e.getMethodName() + e.getDescriptor()) == null) throw e;
                System.err.println("tracekit: left " + e.getClassName() + "." + e.getMethodName() + e.getDescriptor() + " uninstrumented: too large with probes");
            }
        }
    }

    static byte[] instrumentOnce(byte[] data, Map<String, MethodPlan> methods, ClassLoader loader) {
        ClassReader reader = new ClassReader(data);
        ClassNode cn = new ClassNode();
        reader.accept(cn, ClassReader.SKIP_FRAMES);
        for (MethodNode mn : cn.methods) {
            MethodPlan p = methods.get(mn.name + mn.desc);
            if (p != null) instrumentMethod(cn.name, mn, p);
        }
        ClassWriter w = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String a, String b) {
                try {
                    Class<?> c = Class.forName(a.replace('/', '.'), false, loader);
                    Class<?> d = Class.forName(b.replace('/', '.'), false, loader);
                    if (c.isAssignableFrom(d)) return a;
                    if (d.isAssignableFrom(c)) return b;
                    if (c.isInterface() || d.isInterface()) return "java/lang/Object";
                    do { c = c.getSuperclass(); } while (!c.isAssignableFrom(d));
                    return c.getName().replace('.', '/');
                } catch (Throwable t) {
                    return "java/lang/Object";
                }
            }
        };
        cn.accept(w);
        return w.toByteArray();
    }

    static void instrumentMethod(String cls, MethodNode mn, MethodPlan p) {
        new Probes(cls, mn, p, verify).apply();
    }
}
