package tracekit.rt;

/** Bits packed most significant first into a growable byte array (the log's bit fields). */
final class BitOut {
    byte[] bytes = new byte[1 << 10];
    int len;
    private long acc;
    private int filled;
    /** Bits written so far. */
    long bits;

    /** Appends the low {@code n} bits of {@code v} (0 ≤ n ≤ 64), most significant first. */
    void put(long v, int n) {
        if (n == 64 && filled == 0) {
            // A whole word on a byte boundary: eight bytes.
            if (len + 8 > bytes.length) bytes = java.util.Arrays.copyOf(bytes, Math.max(len * 2, len + 8));
            for (int i = 56; i >= 0; i -= 8) bytes[len++] = (byte) (v >>> i);
            bits += 64;
            return;
        }
        if (n > 32) {
            put32(v >>> 32, n - 32);
            put32(v, 32);
        } else {
            put32(v, n);
        }
    }

    private void put32(long v, int n) {
        if (n == 0) return;
        acc = (acc << n) | (v & ((1L << n) - 1));
        filled += n;
        bits += n;
        while (filled >= 8) {
            filled -= 8;
            if (len == bytes.length) bytes = java.util.Arrays.copyOf(bytes, len * 2);
            bytes[len++] = (byte) (acc >>> filled);
        }
    }

    /** Elias gamma code of {@code x} ≥ 1: ⌊log2 x⌋ zeros, then x in ⌊log2 x⌋ + 1 bits. */
    void gamma(long x) {
        int nb = 63 - Long.numberOfLeadingZeros(x);
        put(0, nb);
        put(x, nb + 1);
    }

    /** LEB128 unsigned varint (byte aligned callers only). */
    void varint(long v) {
        while ((v & ~0x7FL) != 0) {
            put((v & 0x7F) | 0x80, 8);
            v >>>= 7;
        }
        put(v, 8);
    }

    /** Pads the last byte with zeros. */
    void align() {
        if (filled > 0) put(0, 8 - filled);
    }

    void reset() {
        len = 0;
        acc = 0;
        filled = 0;
        bits = 0;
    }
}
