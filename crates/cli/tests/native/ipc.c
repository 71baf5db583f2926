/* Two processes talking through proxies and stubs, using the tracekit C API.
 * Usage: ipc ok        — the parent calls the child synchronously and gets an answer;
 *        ipc deadlock  — parent and child call each other synchronously at once. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define TRACEKIT_WEAK
#include "tracekit.h"

struct Radio { int power; };

static void serve_one(int in, int out, uint32_t client) {
    struct Radio radio_stub;
    char c;
    if (read(in, &c, 1) != 1) return;
    tracekit_stub_enter(&radio_stub, "RadioStub", "IRadio", "Connect", client);
    tracekit_operation_enter(&radio_stub, "RadioStub", "IRadio", "Connect");
    tracekit_operation_leave(&radio_stub, "RadioStub", "IRadio", "Connect");
    tracekit_operation_leave(&radio_stub, "RadioStub", "IRadio", "Connect");
    if (write(out, "k", 1) != 1) return;
}

int main(int argc, char **argv) {
    int deadlock = argc > 1 && strcmp(argv[1], "deadlock") == 0;
    int to_child[2], to_parent[2];
    if (pipe(to_child) || pipe(to_parent)) return 1;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        if (deadlock) {
            struct Radio ui_proxy;
            tracekit_object_created("UiProxy", &ui_proxy);
            tracekit_proxy_enter(&ui_proxy, "UiProxy", "IUi", "Show", (uint32_t)parent, 1);
            /* Never answered: the parent is blocked calling us. */
            _exit(0);
        }
        serve_one(to_child[0], to_parent[1], (uint32_t)parent);
        _exit(0);
    }
    struct Radio manager, proxy;
    tracekit_object_created("CallManager", &manager);
    tracekit_operation_enter(&manager, "CallManager", "ICallControl", "Dial");
    tracekit_object_created("RadioProxy", &proxy);
    tracekit_proxy_enter(&proxy, "RadioProxy", "IRadio", "Connect", (uint32_t)child, 1);
    if (!deadlock) {
        char c;
        if (write(to_child[1], "x", 1) != 1 || read(to_parent[0], &c, 1) != 1) return 1;
        tracekit_operation_leave(&proxy, "RadioProxy", "IRadio", "Connect");
    }
    waitpid(child, NULL, 0);
    tracekit_marker("brb");
    tracekit_context_int("Signal strength", 3);
    tracekit_operation_leave(&manager, "CallManager", "ICallControl", "Dial");
    tracekit_object_destroyed("RadioProxy", &proxy);
    tracekit_object_destroyed("CallManager", &manager);
    puts("done");
    return 0;
}
