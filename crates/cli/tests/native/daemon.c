/* Becomes a daemon: the parent exits at once, the daemon works on a little
 * later (the recording must still hold its calls). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static volatile int sink;
static void daemon_work(int n) { for (int i = 0; i < n; i++) sink += i; }
static void become_daemon(void) {
    if (daemon(1, 0) != 0) { perror("daemon"); exit(1); }
}
int main(void) {
    become_daemon();
    usleep(200000);
    daemon_work(4);
    return 0;
}
