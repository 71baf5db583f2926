/* Forks two levels down; the child works there, returns through the frames
 * it inherited and works again in main. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int sink;
static void child_work(int n) { for (int i = 0; i < n; i++) sink += i; }
static void parent_work(void) { sink++; }
static int spawn(void) {
    pid_t p = fork();
    if (p == 0) { child_work(3); return 1; }
    waitpid(p, NULL, 0);
    parent_work();
    return 0;
}
static int outer(void) { return spawn(); }
int main(void) {
    if (outer()) { child_work(1); return 0; }
    printf("done\n");
    return 0;
}
