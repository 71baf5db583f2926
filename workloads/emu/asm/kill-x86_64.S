// Known-count program for x86_64 that dies by a signal: it loops, then
// sends itself SIGTERM. The counts must survive although QEMU's at-exit
// hooks never run.
// expect main instructions=2007 decl=1000 jne=1000 signal=15
    .text
    .global _start
_start:
    mov $1000, %ecx         // 1
1:  dec %ecx                // 1000
    jnz 1b                  // 1000
    mov $39, %eax           // 1  getpid
    syscall                 // 1
    mov %eax, %edi          // 1
    mov $15, %esi           // 1  SIGTERM
    mov $62, %eax           // 1  kill
    syscall                 // 1  dies here: 1 + 2000 + 6 = 2007
    mov $3, %edi            // not reached (exit 3 if the kill failed)
    mov $60, %eax
    syscall
