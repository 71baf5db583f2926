/* Benchmark reference: the least that a tracer storing every event in
 * memory can cost. Its -finstrument-functions hooks read the time-stamp
 * counter and store a 16-byte record (time and kind, function address)
 * into a thread-local 8 MiB ring, with the reservation, limit check and
 * lap flag of tracekit's runtime; nothing ever reads the ring, so there is
 * no drainer. Loaded with LD_PRELOAD by scripts/bench/native-producer.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <x86intrin.h>

#define RING (8u << 20)

struct ring {
    uint64_t w, limit, mask, lap;
    char *base;
};
static __thread struct ring r;

__attribute__((noinline)) static void start(void) {
    r.base = aligned_alloc(4096, RING);
    r.mask = RING - 1;
    r.limit = UINT64_MAX >> 1;
}

static inline void event(uint64_t kind, void *func) {
    uint64_t t = __rdtsc();
    uint64_t w = r.w;
    if (__builtin_expect(w + 16 > r.limit, 0)) {
        start();
        return;
    }
    r.w = w + 16;
    __asm__ volatile("" ::: "memory");
    char *p = r.base + (w & r.mask);
    __builtin_prefetch(r.base + ((w + 16384) & r.mask), 1);
    ((uint64_t *)p)[1] = (uint64_t)func;
    __asm__ volatile("" ::: "memory");
    ((uint64_t *)p)[0] = (t << 4 | kind) ^ r.lap;
}

void __cyg_profile_func_enter(void *func, void *site) {
    (void)site;
    event(1, func);
}

void __cyg_profile_func_exit(void *func, void *site) {
    (void)site;
    event(2, func);
}
