/* Jumps back to main out of several frames, seven times, then calls a
 * function at depth 1 and ends with exit() (main never returns). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
static jmp_buf env;
static volatile int rounds;
static void level3(void) { longjmp(env, 1); }
static void level2(void) { level3(); }
static void level1(void) { level2(); }
static void after(void) { }
int main(void) {
    setjmp(env);
    if (rounds++ < 7) level1();
    after();
    printf("rounds %d\n", rounds);
    exit(0);
}
