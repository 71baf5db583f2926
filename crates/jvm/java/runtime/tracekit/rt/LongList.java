package tracekit.rt;

/** A growable list of longs, with breakpoints marked for PAP. */
final class LongList {
    long[] values = new long[4];
    int size;

    void add(long v) {
        if (size == values.length) values = java.util.Arrays.copyOf(values, size * 2);
        values[size++] = v;
    }
}
