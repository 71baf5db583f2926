/* Runs itself through system() and popen(): system_popen.c, whose children
 * run system_popen.c child N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static volatile int sink;
static void child_work(int n) { for (int i = 0; i < n; i++) sink += i; }
static void run_system(const char *self) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' child 1", self);
    if (system(cmd) != 0) exit(1);
}
static void run_popen(const char *self) {
    char cmd[4096], line[64];
    snprintf(cmd, sizeof cmd, "'%s' child 2", self);
    FILE *f = popen(cmd, "r");
    if (!f) exit(1);
    while (fgets(line, sizeof line, f)) fputs(line, stdout);
    pclose(f);
}
int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "child") == 0) {
        child_work(atoi(argv[2]));
        printf("child %s\n", argv[2]);
        return 0;
    }
    run_system(argv[0]);
    run_popen(argv[0]);
    return 0;
}
