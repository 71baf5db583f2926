/* Starts itself with vfork + execv, and with fork + execve and an
 * environment of its own: vfork_exec.c, whose children run
 * vfork_exec.c child N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int sink;
static void child_work(int n) { for (int i = 0; i < n; i++) sink += i; }
static void with_vfork(char *self) {
    char *argv[] = {self, "child", "1", NULL};
    pid_t p = vfork();
    if (p == 0) { execv(self, argv); _exit(127); }
    waitpid(p, NULL, 0);
}
static void with_execve(char *self) {
    char *argv[] = {self, "child", "2", NULL};
    char *envp[] = {"ONLY_THIS=1", NULL};
    pid_t p = fork();
    if (p == 0) { execve(self, argv, envp); _exit(127); }
    waitpid(p, NULL, 0);
}
int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "child") == 0) {
        child_work(atoi(argv[2]));
        return 0;
    }
    with_vfork(argv[0]);
    with_execve(argv[0]);
    printf("done\n");
    return 0;
}
