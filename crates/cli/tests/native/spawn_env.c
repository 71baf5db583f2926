/* Starts itself twice with posix_spawn and posix_spawnp, each time with an
 * environment of its own (no LD_PRELOAD, nothing of the tracer's):
 * spawn_env.c, whose children run spawn_env.c child N. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
static volatile int sink;
static void child_work(int n) { for (int i = 0; i < n; i++) sink += i; }
static void start(const char *self, int use_path) {
    char *argv[] = {(char *)self, "child", use_path ? "2" : "1", NULL};
    char *envp[] = {"ONLY_THIS=1", "PATH=/usr/bin:/bin", NULL};
    pid_t pid;
    int r = use_path ? posix_spawnp(&pid, self, NULL, NULL, argv, envp)
                     : posix_spawn(&pid, self, NULL, NULL, argv, envp);
    if (r != 0) { fprintf(stderr, "spawn failed: %d\n", r); exit(1); }
    waitpid(pid, NULL, 0);
}
int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "child") == 0) {
        child_work(atoi(argv[2]));
        return getenv("ONLY_THIS") ? 0 : 3;
    }
    start(argv[0], 0);
    start(argv[0], 1);
    printf("done\n");
    return 0;
}
