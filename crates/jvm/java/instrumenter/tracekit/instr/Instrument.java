// Instruments the classes of a jar with tracekit path probes.
//
// The Rust side (crate tracekit-jvm) parses the bytecode, builds each method's
// CFG and writes a plan: for every method, its id and the instruction indices
// where its basic blocks start. This tool only inserts the probe calls at those
// places and lets ASM recompute the StackMapTable frames, so the output passes
// the JVM verifier. Usage:
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
    static final String RT = "tracekit/rt/Rt";
    static final String INV = "Ltracekit/rt/Inv;";

    static final class MethodPlan {
        int id;
        int insnCount;
        int[] leaders;
    }

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
        int lineNo = 0;
        for (String line : Files.readAllLines(file)) {
            lineNo++;
            String[] f = line.split("\t");
            if (f[0].equals("C")) {
                current = plan.computeIfAbsent(f[1], k -> new HashMap<>());
            } else if (f[0].equals("M") && current != null) {
                MethodPlan m = new MethodPlan();
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

    static AbstractInsnNode push(int v) {
        if (v >= -1 && v <= 5) return new InsnNode(Opcodes.ICONST_0 + v);
        if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) return new IntInsnNode(Opcodes.BIPUSH, v);
        if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) return new IntInsnNode(Opcodes.SIPUSH, v);
        return new LdcInsnNode(v);
    }

    static void instrumentMethod(String cls, MethodNode mn, MethodPlan p) {
        List<AbstractInsnNode> real = new ArrayList<>();
        for (AbstractInsnNode n : mn.instructions) if (n.getOpcode() >= 0) real.add(n);
        if (real.size() != p.insnCount)
            throw new IllegalStateException(cls + "." + mn.name + mn.desc + ": plan expects " + p.insnCount + " instructions, ASM sees " + real.size());
        int inv = mn.maxLocals;
        mn.maxLocals += 1;
        for (int b = 0; b < p.leaders.length; b++) {
            InsnList probe = new InsnList();
            probe.add(new VarInsnNode(Opcodes.ALOAD, inv));
            probe.add(push(b + 1));
            probe.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "visit", "(" + INV + "I)V", false));
            mn.instructions.insertBefore(real.get(p.leaders[b]), probe);
        }
        for (AbstractInsnNode n : real) {
            int op = n.getOpcode();
            if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                InsnList probe = new InsnList();
                probe.add(new VarInsnNode(Opcodes.ALOAD, inv));
                probe.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "exit", "(" + INV + ")V", false));
                mn.instructions.insertBefore(n, probe);
            }
        }
        InsnList prologue = new InsnList();
        prologue.add(push(p.id));
        prologue.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "enter", "(I)" + INV, false));
        prologue.add(new VarInsnNode(Opcodes.ASTORE, inv));
        mn.instructions.insert(prologue);
    }
}
