package tkbench.emu;

/**
 * A loop whose iteration count is known, for checking that code the JIT
 * writes at run time is counted exactly: run with
 * {@code -Xcomp -XX:TieredStopAtLevel=1 -XX:CompileCommand=quiet
 * -XX:CompileCommand=compileonly,tkbench.emu.JitLoop::spin} so that only
 * {@code spin} is compiled, by C1 (which does not unroll loops), before its
 * first call: its loop body then runs exactly N times in JIT code.
 * Usage: {@code JitLoop N}.
 */
public final class JitLoop {
    private JitLoop() {}

    static long spin(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += i ^ (s >>> 3);
        }
        return s;
    }

    public static void main(String[] args) {
        System.out.println(spin(Integer.parseInt(args[0])));
    }
}
