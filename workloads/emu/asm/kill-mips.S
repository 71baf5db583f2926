// Known-count program for 32-bit MIPS that dies by a signal (SIGTERM sent
// to itself after a loop).
// expect main instructions=3007 addiu=1000 bnez=1000 nop=1000 signal=15
    .text
    .set noreorder
    .global __start
    .global _start
__start:
_start:
    ori $s0, $zero, 1000    // 1
1:  addiu $s0, $s0, -1      // 1000
    bnez $s0, 1b            // 1000
    nop                     // 1000 (delay slot)
    ori $v0, $zero, 4020    // 1  getpid
    syscall                 // 1
    or $a0, $v0, $zero      // 1
    ori $a1, $zero, 15      // 1  SIGTERM
    ori $v0, $zero, 4037    // 1  kill
    syscall                 // 1  dies here: 1 + 3000 + 6 = 3007
    ori $a0, $zero, 3       // not reached (exit 3 if the kill failed)
    ori $v0, $zero, 4001
    syscall
