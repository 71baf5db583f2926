/* Loads two libraries with dlopen, calls into each and unloads each before
 * the next is loaded (the second may reuse the first one's addresses):
 * dlopen_unload.c LIB_A LIB_B. */
#include <dlfcn.h>
#include <stdio.h>
static int call_library(const char *path, const char *symbol) {
    void *h = dlopen(path, RTLD_NOW);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return -1; }
    int (*f)(int) = (int (*)(int))dlsym(h, symbol);
    int r = f ? f(20) : -1;
    dlclose(h);
    return r;
}
int main(int argc, char **argv) {
    if (argc < 3) return 2;
    int a = call_library(argv[1], "plugin_entry");
    int b = call_library(argv[2], "other_entry");
    printf("%d %d\n", a, b);
    return 0;
}
