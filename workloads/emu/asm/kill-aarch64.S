// Known-count program for AArch64 that dies by a signal (SIGTERM sent to
// itself after a loop).
// expect main instructions=2006 subs=1000 b.ne=1000 signal=15
    .text
    .global _start
_start:
    mov x19, #1000          // 1
1:  subs x19, x19, #1       // 1000
    b.ne 1b                 // 1000
    mov x8, #172            // 1  getpid
    svc #0                  // 1
    mov x1, #15             // 1  SIGTERM
    mov x8, #129            // 1  kill
    svc #0                  // 1  dies here: 1 + 2000 + 5 = 2006
    mov x0, #3              // not reached (exit 3 if the kill failed)
    mov x8, #93
    svc #0
