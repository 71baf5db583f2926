// Known-count program for 32-bit ARM (ARM and Thumb code).
// The parent forks; the child runs a Thumb-2 loop, the parent an ARM loop
// and waits. Every executed instruction is counted below by construction;
// the fork `svc` belongs to the parent (the child starts after it).
// expect parent instructions=214 subs=100 bne=100
// expect child instructions=611 subs=200 add=202 bne=200 b=2
// (adr assembles to add; the disassembler writes add.w, counted as add)
// Two of the child's Thumb blocks hold only 32-bit instructions, so their
// bytes could be ARM code too: the ELF's $t mapping symbol decides.
    .syntax unified
    .text
    .global _start
    .arm
_start:
    mov r7, #2              // 1 parent: fork
    svc #0                  // 1 parent
    cmp r0, #0              // 1 each
    beq child               // 1 each
    mov r4, #100            // 1 parent
1:  subs r4, r4, #1         // 100
    bne 1b                  // 100
    mvn r0, #0              // 1  pid = -1
    mov r1, #0              // 1
    mov r2, #0              // 1
    mov r3, #0              // 1
    mov r7, #114            // 1  wait4
    svc #0                  // 1
    mov r0, #0              // 1
    mov r7, #248            // 1  exit_group
    svc #0                  // 1  parent: 2 + 2 + 1 + 200 + 6 + 3 = 214
child:
    adr r1, thumb_child + 1 // 1 child
    bx r1                   // 1
    .thumb
    .thumb_func
thumb_child:
    movs r4, #200           // 1
2:  subs r4, #1             // 200 (16-bit)
    add.w r5, r5, #3        // 200 (32-bit Thumb-2)
    bne 2b                  // 200
    b.w 3f                  // 1  a block of one 32-bit instruction
3:  add.w r0, r0, #0        // 1  a block of two 32-bit instructions
    b.w 4f                  // 1
4:  movs r0, #0             // 1
    movs r7, #1             // 1  exit
    svc #0                  // 1  child: 2 + 2 + 1 + 600 + 3 + 3 = 611
