/* A shared library loaded with dlopen. */
static int plugin_helper(int x) { return x * 2; }
int plugin_entry(int x) { return plugin_helper(x) + 1; }
