/* Loads plugin.so with dlopen and calls into it. */
#include <dlfcn.h>
#include <stdio.h>
static int call_plugin(const char *path) {
    void *h = dlopen(path, RTLD_NOW);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return -1; }
    int (*f)(int) = (int (*)(int))dlsym(h, "plugin_entry");
    return f(20);
}
int main(int argc, char **argv) {
    printf("%d\n", call_plugin(argc > 1 ? argv[1] : "./plugin.so"));
    return 0;
}
