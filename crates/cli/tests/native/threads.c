/* Several threads running the same and different functions. */
#include <pthread.h>
#include <stdio.h>
static volatile long sink;
static void leaf(long i) { sink += i; }
static void middle(long n) { for (long i = 0; i < n; i++) leaf(i); }
static void *worker(void *arg) { middle((long)arg); return NULL; }
int main(void) {
    pthread_t t[4];
    for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 2));
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    middle(3);
    printf("%ld\n", sink);
    return 0;
}
