// Known-count program for AArch64 (fork via clone(SIGCHLD)).
// expect parent instructions=218 subs=100 b.ne=100
// expect child instructions=605 subs=200 add=200 b.ne=200
    .text
    .global _start
_start:
    mov x0, #17             // 1 parent: SIGCHLD
    mov x1, #0              // 1
    mov x2, #0              // 1
    mov x3, #0              // 1
    mov x4, #0              // 1
    mov x8, #220            // 1  clone
    svc #0                  // 1
    cbz x0, child           // 1 each
    mov x19, #100           // 1 parent
1:  subs x19, x19, #1       // 100
    b.ne 1b                 // 100
    mov x0, #-1             // 1
    mov x1, #0              // 1
    mov x2, #0              // 1
    mov x3, #0              // 1
    mov x8, #260            // 1  wait4
    svc #0                  // 1
    mov x0, #0              // 1
    mov x8, #94             // 1  exit_group
    svc #0                  // 1  parent: 7 + 1 + 1 + 200 + 9 = 218
child:
    mov x19, #200           // 1
2:  add x20, x20, #3        // 200
    subs x19, x19, #1       // 200
    b.ne 2b                 // 200
    mov x0, #0              // 1
    mov x8, #93             // 1  exit
    svc #0                  // 1  child: 1 + 1 + 600 + 3 = 605
