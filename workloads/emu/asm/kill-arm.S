// Known-count program for 32-bit ARM that dies by a signal (SIGTERM sent
// to itself after a loop).
// expect main instructions=2006 subs=1000 bne=1000 signal=15
    .syntax unified
    .text
    .global _start
    .arm
_start:
    mov r4, #1000           // 1
1:  subs r4, r4, #1         // 1000
    bne 1b                  // 1000
    mov r7, #20             // 1  getpid
    svc #0                  // 1
    mov r1, #15             // 1  SIGTERM
    mov r7, #37             // 1  kill
    svc #0                  // 1  dies here: 1 + 2000 + 5 = 2006
    mov r0, #3              // not reached (exit 3 if the kill failed)
    mov r7, #1
    svc #0
