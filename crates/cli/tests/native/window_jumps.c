/* Rounds of many calls, each ending in a longjmp back to main out of
 * three frames, then one more round that returns: a recording of many
 * blocks with a setjmp near its start and jumps all along (for the time
 * window test: the blocks before a window are skimmed, setjmp included).
 * Usage: window_jumps CALLS_PER_ROUND */
#include <setjmp.h>
#include <stdlib.h>
static jmp_buf env;
static volatile int round_no;
__attribute__((noinline)) void leaf(void) { __asm__ volatile(""); }
__attribute__((noinline)) void work(long n) {
    for (long i = 0; i < n; i++) leaf();
}
__attribute__((noinline)) void deep(int d, long n) {
    if (d == 0) {
        work(n);
        longjmp(env, 1);
    }
    deep(d - 1, n);
}
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    setjmp(env);
    if (round_no++ < 4) deep(3, n);
    work(n);
    return 0;
}
