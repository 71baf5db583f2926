/* A signal handler that calls instrumented functions. */
#include <signal.h>
#include <stdio.h>
static volatile int hits;
static void in_handler(void) { hits++; }
static void handler(int sig) { (void)sig; in_handler(); }
static void fire(void) { raise(SIGUSR1); }
int main(void) {
    signal(SIGUSR1, handler);
    fire();
    fire();
    printf("%d\n", hits);
    return 0;
}
