/* longjmp out of nested instrumented frames. */
#include <setjmp.h>
#include <stdio.h>
static jmp_buf env;
static void deepest(void) { longjmp(env, 1); }
static void deeper(void) { deepest(); }
static void deep(void) { deeper(); }
static void after(void) { }
static void run(void) {
    if (setjmp(env) == 0) deep();
    after();
}
int main(void) { run(); printf("ok\n"); return 0; }
