/* Defines its own malloc, free, realloc and calloc (compiled with
 * -finstrument-functions like the rest), makes a few calls and optionally
 * forks: own_malloc.c [fork]. The runtime must never call them. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static char arena[1 << 22];
static size_t used;
void *malloc(size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (used + n + 16 > sizeof arena) return NULL;
    size_t *p = (size_t *)(arena + used);
    *p = n;
    used += n + 16;
    return (char *)p + 16;
}
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b) {
    void *p = malloc(a * b);
    if (p) memset(p, 0, a * b);
    return p;
}
void *realloc(void *old, size_t n) {
    void *p = malloc(n);
    if (p && old) {
        size_t had = *(size_t *)((char *)old - 16);
        memcpy(p, old, had < n ? had : n);
    }
    return p;
}
static volatile int sink;
static void work(int n) { for (int i = 0; i < n; i++) sink += i; }
static char *make_label(int i) {
    char *s = malloc(32);
    snprintf(s, 32, "label %d", i);
    return s;
}
int main(int argc, char **argv) {
    char *s = make_label(1);
    work(3);
    free(s);
    if (argc > 1 && strcmp(argv[1], "fork") == 0) {
        pid_t p = fork();
        if (p == 0) { work(2); free(make_label(2)); _exit(0); }
        waitpid(p, NULL, 0);
    }
    printf("done\n");
    return 0;
}
