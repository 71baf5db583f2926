package tkbench;

/**
 * A 16-bit-word block cipher in the style of IDEA (multiplication modulo
 * 2^16+1, addition modulo 2^16, xor), encrypting and decrypting a buffer.
 * Written from the algorithm's public description; no benchmark code used.
 */
public final class Crypt {
    static int mul(int a, int b) {
        if (a == 0) return (0x10001 - b) & 0xFFFF;
        if (b == 0) return (0x10001 - a) & 0xFFFF;
        long p = (long) a * b;
        int lo = (int) (p & 0xFFFF), hi = (int) (p >>> 16);
        return (lo - hi + (lo < hi ? 1 : 0)) & 0xFFFF;
    }

    static int inv(int x) {
        if (x <= 1) return x;
        int t0 = 1, t1 = 0x10001 / x, y = 0x10001 % x;
        while (y != 1) {
            int q = x / y; x %= y; t0 += q * t1;
            if (x == 1) return t0;
            q = y / x; y %= x; t1 += q * t0;
        }
        return (1 - t1) & 0xFFFF;
    }

    /** Subkeys: eight 16-bit words of the 128-bit key, which rotates left by 25 bits after each eight. */
    static int[] schedule(int[] key) {
        int[] z = new int[52];
        int[] k = key.clone();
        for (int i = 0; i < 52; i++) {
            z[i] = k[i % 8];
            if (i % 8 == 7) k = rotate25(k);
        }
        return z;
    }

    static int[] rotate25(int[] k) {
        int[] r = new int[8];
        for (int i = 0; i < 8; i++) r[i] = ((k[(i + 1) % 8] << 9) | (k[(i + 2) % 8] >>> 7)) & 0xFFFF;
        return r;
    }

    static int[] invert(int[] z) {
        int[] d = new int[52];
        int p = 0, q = 48;
        d[q] = inv(z[p]); d[q + 1] = (-z[p + 1]) & 0xFFFF; d[q + 2] = (-z[p + 2]) & 0xFFFF; d[q + 3] = inv(z[p + 3]);
        p += 4;
        for (int r = 1; r < 8; r++) {
            q -= 6;
            d[q + 4] = z[p]; d[q + 5] = z[p + 1];
            d[q] = inv(z[p + 2]); d[q + 1] = (-z[p + 4]) & 0xFFFF; d[q + 2] = (-z[p + 3]) & 0xFFFF; d[q + 3] = inv(z[p + 5]);
            p += 6;
        }
        q -= 6;
        d[q + 4] = z[p]; d[q + 5] = z[p + 1];
        d[0] = inv(z[p + 2]); d[1] = (-z[p + 3]) & 0xFFFF; d[2] = (-z[p + 4]) & 0xFFFF; d[3] = inv(z[p + 5]);
        return d;
    }

    static void cipher(int[] in, int[] out, int[] k) {
        for (int b = 0; b + 3 < in.length; b += 4) {
            int x1 = in[b], x2 = in[b + 1], x3 = in[b + 2], x4 = in[b + 3];
            int p = 0;
            for (int r = 0; r < 8; r++) {
                x1 = mul(x1, k[p++]); x2 = (x2 + k[p++]) & 0xFFFF; x3 = (x3 + k[p++]) & 0xFFFF; x4 = mul(x4, k[p++]);
                int t2 = mul(x1 ^ x3, k[p++]);
                int t1 = mul((t2 + (x2 ^ x4)) & 0xFFFF, k[p++]);
                t2 = (t1 + t2) & 0xFFFF;
                x1 ^= t1; x4 ^= t2;
                t2 ^= x2; x2 = x3 ^ t1; x3 = t2;
            }
            out[b] = mul(x1, k[p++]); out[b + 1] = (x3 + k[p++]) & 0xFFFF; out[b + 2] = (x2 + k[p++]) & 0xFFFF; out[b + 3] = mul(x4, k[p]);
        }
    }

    public static void main(String[] args) {
        int n = (Bench.size(args, 20000) / 8) & ~3;
        Bench.Rng r = new Bench.Rng(11);
        int[] key = new int[8];
        for (int i = 0; i < 8; i++) key[i] = r.nextInt(0x10000);
        int[] z = schedule(key), dk = invert(z);
        int[] plain = new int[n], enc = new int[n], dec = new int[n];
        for (int i = 0; i < n; i++) plain[i] = r.nextInt(0x10000);
        cipher(plain, enc, z);
        cipher(enc, dec, dk);
        long diff = 0;
        for (int i = 0; i < n; i++) if (plain[i] != dec[i]) diff++;
        Bench.report("Crypt", diff * 1000003L + enc[n / 2]);
    }
}
