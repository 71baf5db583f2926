/* A second shared library for dlopen_unload.c. */
static int other_helper(int x) { return x + 3; }
int other_entry(int x) { return other_helper(x) * 2; }
