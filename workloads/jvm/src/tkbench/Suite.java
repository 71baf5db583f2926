package tkbench;

/** Runs every tkbench program in turn (or the ones named on the command line). */
public final class Suite {
    public static void main(String[] args) throws Exception {
        String[] all = { "Arith", "Assign", "Cast", "Create", "Exceptions", "Loop", "MathOps", "Method", "Serial",
                         "Series", "LUFact", "HeapSort", "Crypt", "FFT", "SOR", "SparseMatmult" };
        String size = System.getProperty("tkbench.size", "20000");
        String[] which = args.length > 0 ? args : all;
        for (String name : which) {
            Class.forName("tkbench." + name).getMethod("main", String[].class).invoke(null, (Object) new String[] { size });
        }
    }
}
