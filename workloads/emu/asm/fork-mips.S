// Known-count program for 32-bit MIPS (o32), delay slots written out.
// expect parent instructions=314 addiu=100 bnez=101 nop=101
// (capstone prints the aliases li/move for the other addiu/ori/or lines)
// expect child instructions=606 addiu=400 bnez=201
    .text
    .set noreorder
    .global __start
    .global _start
__start:
_start:
    addiu $v0, $zero, 4002  // 1 parent: fork
    syscall                 // 1 parent
    bnez $v0, parent        // 1 each
    nop                     // 1 each (delay slot)
    addiu $s0, $zero, 200   // 1 child
1:  addiu $s0, $s0, -1      // 200
    bnez $s0, 1b            // 200
    addiu $s1, $s1, 3       // 200 (delay slot)
    or $a0, $zero, $zero    // 1
    ori $v0, $zero, 4001    // 1  exit
    syscall                 // 1  child: 2 + 1 + 600 + 3 = 606
parent:
    ori $s0, $zero, 100     // 1
2:  addiu $s0, $s0, -1      // 100
    bnez $s0, 2b            // 100
    nop                     // 100 (delay slot)
    addiu $a0, $zero, -1    // 1  pid = -1
    or $a1, $zero, $zero    // 1
    or $a2, $zero, $zero    // 1
    or $a3, $zero, $zero    // 1
    ori $v0, $zero, 4114    // 1  wait4
    syscall                 // 1
    or $a0, $zero, $zero    // 1
    ori $v0, $zero, 4246    // 1  exit_group
    syscall                 // 1  parent: 2 + 2 + 1 + 300 + 9 = 314
