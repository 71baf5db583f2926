/* One program, two builds (-O0 and -O2): `tracekit diff` must give the
 * exact instruction deltas per category and function between them. */
#include <stdio.h>

__attribute__((noipa)) static unsigned long mix(unsigned long x) {
    return x * 6364136223846793005UL + 1442695040888963407UL;
}

__attribute__((noipa)) unsigned long work(int n) {
    unsigned long s = 0;
    for (int i = 0; i < n; i++) {
        s ^= mix(s + (unsigned long)i);
        if (s & 1)
            s += (unsigned long)i;
    }
    return s;
}

int main(void) {
    printf("%lu\n", work(20000));
    return 0;
}
