/* Crypto-like kernel: an add-rotate-xor block cipher (in the style of
 * lightweight ciphers such as Speck) run in counter mode over a buffer,
 * with a running checksum of the ciphertext. Not a real cipher. */
#include "kernels.h"

static inline uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
static inline uint32_t rotr(uint32_t x, int r) { return (x >> r) | (x << (32 - r)); }

static void encrypt_block(uint32_t *x, uint32_t *y, const uint32_t *keys, int rounds) {
    for (int i = 0; i < rounds; i++) {
        *x = (rotr(*x, 8) + *y) ^ keys[i];
        *y = rotl(*y, 3) ^ *x;
    }
}

uint32_t kernel_crypto(int scale) {
    enum { ROUNDS = 27, WORDS = 512 };
    static uint32_t keys[ROUNDS], buf[WORDS];
    uint32_t seed = 0xC0FFEE;
    for (int i = 0; i < ROUNDS; i++) keys[i] = suite_rand(&seed);
    for (int i = 0; i < WORDS; i++) buf[i] = suite_rand(&seed);
    uint32_t sum = 0;
    for (int r = 0; r < 2 * scale; r++)
        for (int i = 0; i < WORDS; i += 2) {
            uint32_t x = (uint32_t)i, y = (uint32_t)r;
            encrypt_block(&x, &y, keys, ROUNDS);
            buf[i] ^= x;
            buf[i + 1] ^= y;
            sum = rotl(sum, 5) ^ buf[i] ^ (buf[i + 1] * 2654435761u);
        }
    return sum;
}
