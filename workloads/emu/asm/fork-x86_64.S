// Known-count program for x86_64.
// expect parent instructions=214 decl=100 jne=100
// expect child instructions=606 addl=200 decl=200 jne=200
    .text
    .global _start
_start:
    mov $57, %eax           // 1 parent: fork
    syscall                 // 1 parent
    test %eax, %eax         // 1 each
    jz child                // 1 each
    mov $100, %ecx          // 1 parent
1:  dec %ecx                // 100
    jnz 1b                  // 100
    mov $-1, %rdi           // 1  pid = -1
    xor %esi, %esi          // 1
    xor %edx, %edx          // 1
    xor %r10d, %r10d        // 1
    mov $61, %eax           // 1  wait4
    syscall                 // 1
    xor %edi, %edi          // 1
    mov $231, %eax          // 1  exit_group
    syscall                 // 1  parent: 2 + 2 + 1 + 200 + 9 = 214
child:
    mov $200, %ecx          // 1
2:  add $3, %ebx            // 200
    dec %ecx                // 200
    jnz 2b                  // 200
    xor %edi, %edi          // 1
    mov $60, %eax           // 1  exit
    syscall                 // 1  child: 2 + 1 + 600 + 3 = 606
