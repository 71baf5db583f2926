/* A minimal JIT with known counts: writes a tiny function into executable
 * memory, calls it N1 times, overwrites it IN PLACE with a different
 * function and calls that N2 times, then writes the first one back and
 * calls it N3 times. A profiler must count the two versions as two blocks
 * at one address: version A runs N1 + N3 times, version B N2 times.
 *
 * usage: minijit N1 N2 N3   (prints the JIT buffer address and the sum)
 *
 * // expect A executions=N1+N3 instructions=A_INSNS*(N1+N3)
 * // expect B executions=N2 instructions=B_INSNS*N2
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__aarch64__)
/* A: add x0, x0, #1; ret      B: add x0, x0, #2; add x0, x0, #3; ret */
static const uint32_t code_a[] = { 0x91000400, 0xd65f03c0 };
static const uint32_t code_b[] = { 0x91000800, 0x91000c00, 0xd65f03c0 };
#define A_INSNS 2
#define B_INSNS 3
#elif defined(__arm__)
/* ARM mode. A: add r0, r0, #1; bx lr   B: add r0, r0, #2; add r0, r0, #3; bx lr */
static const uint32_t code_a[] = { 0xe2800001, 0xe12fff1e };
static const uint32_t code_b[] = { 0xe2800002, 0xe2800003, 0xe12fff1e };
#define A_INSNS 2
#define B_INSNS 3
#elif defined(__mips__)
/* A: addiu v0, a0, 1; jr ra; nop   B: addiu v0, a0, 2; addiu v0, v0, 3; jr ra; nop */
static const uint32_t code_a[] = { 0x24820001, 0x03e00008, 0x00000000 };
static const uint32_t code_b[] = { 0x24820002, 0x24420003, 0x03e00008, 0x00000000 };
#define A_INSNS 3
#define B_INSNS 4
#elif defined(__x86_64__)
/* A: lea rax, [rdi+1]; ret    B: lea rax, [rdi+2]; add rax, 3; ret */
static const uint8_t code_a[] = { 0x48, 0x8d, 0x47, 0x01, 0xc3 };
static const uint8_t code_b[] = { 0x48, 0x8d, 0x47, 0x02, 0x48, 0x83, 0xc0, 0x03, 0xc3 };
#define A_INSNS 2
#define B_INSNS 3
#else
#error "unsupported architecture"
#endif

typedef long (*jitted)(long);

static void emit(void *buf, const void *code, size_t size) {
    memcpy(buf, code, size);
    __builtin___clear_cache((char *)buf, (char *)buf + size);
}

static long call_n(void *buf, long n, long acc) {
    jitted f = (jitted)buf;
    for (long i = 0; i < n; i++) acc = f(acc) & 0xffff;
    return acc;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s N1 N2 N3\n", argv[0]);
        return 2;
    }
    long n1 = atol(argv[1]), n2 = atol(argv[2]), n3 = atol(argv[3]);
    void *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    long acc = 0;
    emit(buf, code_a, sizeof code_a);
    acc = call_n(buf, n1, acc);
    emit(buf, code_b, sizeof code_b);
    acc = call_n(buf, n2, acc);
    emit(buf, code_a, sizeof code_a);
    acc = call_n(buf, n3, acc);
    printf("jit %lx a_insns %d b_insns %d sum %ld\n", (unsigned long)(uintptr_t)buf, A_INSNS, B_INSNS, acc);
    return 0;
}
