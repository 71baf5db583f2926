/* Compression-like kernel: a greedy LZ77 compressor with a hash table of
 * 3-byte prefixes over generated text, followed by decompression and a
 * comparison, returning a checksum of the compressed stream. */
#include <string.h>
#include "kernels.h"

enum { INPUT = 4096, HASH = 1024, MIN_MATCH = 3, MAX_MATCH = 130 };

static unsigned hash3(const uint8_t *p) { return ((p[0] << 6) ^ (p[1] << 3) ^ p[2]) & (HASH - 1); }

static int compress(const uint8_t *in, int n, uint8_t *out) {
    static int table[HASH];
    for (int i = 0; i < HASH; i++) table[i] = -1;
    int i = 0, o = 0, lit_start = 0;
    while (i + MIN_MATCH <= n) {
        unsigned h = hash3(in + i);
        int cand = table[h], len = 0;
        table[h] = i;
        if (cand >= 0 && i - cand < 65536)
            while (len < MAX_MATCH && i + len < n && in[cand + len] == in[i + len]) len++;
        if (len >= MIN_MATCH) {
            while (lit_start < i) { /* flush literals in runs of up to 127 */
                int run = i - lit_start > 127 ? 127 : i - lit_start;
                out[o++] = (uint8_t)run;
                memcpy(out + o, in + lit_start, run);
                o += run;
                lit_start += run;
            }
            int dist = i - cand;
            out[o++] = (uint8_t)(0x80 | (len - MIN_MATCH));
            out[o++] = (uint8_t)(dist >> 8);
            out[o++] = (uint8_t)dist;
            i += len;
            lit_start = i;
        } else {
            i++;
        }
    }
    i = n;
    while (lit_start < i) {
        int run = i - lit_start > 127 ? 127 : i - lit_start;
        out[o++] = (uint8_t)run;
        memcpy(out + o, in + lit_start, run);
        o += run;
        lit_start += run;
    }
    return o;
}

static int decompress(const uint8_t *in, int n, uint8_t *out) {
    int i = 0, o = 0;
    while (i < n) {
        uint8_t tag = in[i++];
        if (tag & 0x80) {
            int len = (tag & 0x7f) + MIN_MATCH;
            int dist = (in[i] << 8) | in[i + 1];
            i += 2;
            for (int k = 0; k < len; k++, o++) out[o] = out[o - dist];
        } else {
            memcpy(out + o, in + i, tag);
            o += tag;
            i += tag;
        }
    }
    return o;
}

uint32_t kernel_compress(int scale) {
    static const char *words[] = {"emulator ", "profile ", "block ", "count ", "energy ",
                                  "thumb ", "branch ", "cycle "};
    static uint8_t text[INPUT], packed[INPUT * 2], unpacked[INPUT];
    uint32_t seed = 42, sum = 0;
    for (int r = 0; r < scale; r++) {
        int n = 0;
        while (n < INPUT - 16) {
            const char *w = words[suite_rand(&seed) % 8];
            while (*w && n < INPUT - 16) text[n++] = (uint8_t)*w++;
        }
        int packed_len = compress(text, n, packed);
        int back = decompress(packed, packed_len, unpacked);
        if (back != n || memcmp(text, unpacked, n) != 0) return 0xdeadbeef;
        for (int i = 0; i < packed_len; i++) sum = sum * 31 + packed[i];
    }
    return sum;
}
