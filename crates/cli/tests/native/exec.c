/* Calls a function, then replaces itself with another program: exec.c PROGRAM. */
#include <stdio.h>
#include <unistd.h>
static volatile int sink;
static void before_exec(void) { sink++; }
int main(int argc, char **argv) {
    before_exec();
    if (argc > 1) {
        execv(argv[1], argv + 1);
        perror("execv");
    }
    return 1;
}
