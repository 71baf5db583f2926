/* Dies after calling a few functions: crash.c segv | abort | kill | loop N. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static volatile int sink;
static void before_crash(int i) { sink += i; }
static void die(const char *how) {
    if (strcmp(how, "segv") == 0) { volatile int *p = 0; *p = 1; }
    if (strcmp(how, "abort") == 0) abort();
    if (strcmp(how, "kill") == 0) kill(getpid(), SIGKILL);
}
int main(int argc, char **argv) {
    const char *how = argc > 1 ? argv[1] : "segv";
    long n = argc > 2 ? atol(argv[2]) : 3;
    for (long i = 0; i < n; i++) before_crash((int)i);
    die(how);
    return 0;
}
