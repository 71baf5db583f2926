package tracekit.rt;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Bits packed most significant first (the log's bit fields). Whole 64-bit
 * words go into a growable long array, the bits of the word in progress wait
 * in an accumulator: one array store per 64 bits, where a byte array took a
 * store and a bounds check per byte. {@link #writeTo} gives the bytes.
 */
final class BitOut {
    // Package-private for RecordCoder.codeRun, which keeps them in locals over a run of records.
    long[] words = new long[1 << 7];
    int full;
    /** The word in progress: its low {@code filled} bits are the newest (bits above them are stale). */
    long acc;
    int filled;
    /** Bits written so far. */
    long bits;
    /** {@link #writeTo}'s bytes, big-endian (kept between calls). */
    private java.nio.ByteBuffer bytes;

    /**
     * Appends the low {@code n} bits of {@code v} (0 ≤ n ≤ 64), most
     * significant first. One branch, whether the word in progress fills,
     * and it goes both ways within the first few records: a branch that
     * first goes the other way after C2 compiled the coder (say, the first
     * zero-width field) would deoptimise it back to the profiling tier for
     * the rest of a short run.
     */
    void put(long v, int n) {
        // The low n bits: all of them for n = 64, none for n = 0 (shifts are mod 64).
        v &= (-1L >>> (64 - n)) & -(long) ((n + 63) >>> 6);
        bits += n;
        int total = filled + n;
        if (total < 64) {
            acc = (acc << n) | v;
            filled = total;
            return;
        }
        int rest = total - 64;
        // acc << (64 - filled), 0 when filled = 0; then the top bits of v.
        long word = ((acc << (63 - filled)) << 1) | (v >>> rest);
        if (full == words.length) words = java.util.Arrays.copyOf(words, full * 2);
        words[full++] = word;
        acc = v;
        filled = rest;
    }

    /** The last {@code n} bits written (0 ≤ n ≤ 64, at most {@link #bits}), as the low bits of the result. */
    long lastBits(int n) {
        if (n == 0) return 0;
        if (n <= filled) return acc & (-1L >>> (64 - n));
        int fromWord = n - filled; // 1..64
        long hi = words[full - 1] & (-1L >>> (64 - fromWord));
        return filled == 0 ? hi : (hi << filled) | (acc & (-1L >>> (64 - filled)));
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
        int over = (int) (bits & 7);
        if (over > 0) put(0, 8 - over);
    }

    /** Bytes {@link #writeTo} writes: the bits written, rounded up to whole bytes. */
    int byteLen() {
        return (int) ((bits + 7) >>> 3);
    }

    /** Writes the bits as bytes, most significant first, the last byte padded with zeros. */
    void writeTo(OutputStream out) throws IOException {
        int tail = (filled + 7) >>> 3;
        int need = full * 8 + 8;
        // One byte buffer, kept: a fresh one per block cost the coder as much zeroing and page faulting as coding.
        if (bytes == null || bytes.capacity() < need) bytes = java.nio.ByteBuffer.allocate(Math.max(need, 1 << 10));
        bytes.asLongBuffer().put(words, 0, full);
        if (filled > 0) bytes.putLong(full * 8, acc << (64 - filled));
        out.write(bytes.array(), 0, full * 8 + tail);
    }

    /** Makes this (whatever it held) a copy of {@code other}. */
    void copyFrom(BitOut other) {
        if (words.length < other.full + 1) words = new long[other.full + 1];
        System.arraycopy(other.words, 0, words, 0, other.full);
        full = other.full;
        acc = other.acc;
        filled = other.filled;
        bits = other.bits;
    }

    void reset() {
        full = 0;
        acc = 0;
        filled = 0;
        bits = 0;
    }
}
