/* Benchmark workload: THREADS threads each call an empty instrumented
 * function N times and report the loop's wall time per call.
 * Usage: native_loop N [THREADS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void traced_leaf(void) { __asm__ volatile(""); }

static long n;
static double cpu_total_ns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Only main and traced_leaf are instrumented: the helpers below are not. */
__attribute__((no_instrument_function)) static double clock_ns(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Each thread measures its own CPU time: the figure does not count time
 * the thread spent descheduled on a busy machine. */
__attribute__((no_instrument_function)) static void *loop(void *arg) {
    (void)arg;
    double c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < n; i++) traced_leaf();
    double c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    pthread_mutex_lock(&lock);
    cpu_total_ns += c1 - c0;
    pthread_mutex_unlock(&lock);
    return NULL;
}

__attribute__((no_instrument_function)) static double now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

int main(int argc, char **argv) {
    n = argc > 1 ? atol(argv[1]) : 10000000;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    pthread_t t[64];
    double t0 = now_ns();
    if (threads == 1) {
        loop(NULL);
    } else {
        for (int i = 0; i < threads && i < 64; i++) pthread_create(&t[i], NULL, loop, NULL);
        for (int i = 0; i < threads && i < 64; i++) pthread_join(t[i], NULL);
    }
    double t1 = now_ns();
    printf("cpu_ns_per_call %.3f wall_ns_per_call %.3f calls %ld threads %d\n", cpu_total_ns / ((double)n * threads), (t1 - t0) / n, n * threads, threads);
    return 0;
}
