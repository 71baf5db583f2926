/* A parent and a forked child both call instrumented functions. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int sink;
static void child_work(int n) { for (int i = 0; i < n; i++) sink += i; }
static void parent_work(void) { sink++; }
static void spawn(void) {
    pid_t p = fork();
    if (p == 0) { child_work(3); _exit(0); }
    waitpid(p, NULL, 0);
    parent_work();
}
int main(void) { spawn(); printf("done\n"); return 0; }
