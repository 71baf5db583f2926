# Default categorization for MIPS32 (o32, as disassembled by QEMU), for a
# generic in-order five-stage core. Cycle and power figures are illustrative
# averages for estimation, to be calibrated for a real part.
profile mips32-generic
isa mips32
organization Generic in-order MIPS32
freq_ghz 1
default Undefined cycles=1 power_mw=100

category Load cycles=2 power_mw=140
any lb lbu lh lhu ll lw lwl lwr

category Store cycles=1 power_mw=135
any sb sc sh sw swl swr

category ALU cycles=1 power_mw=100
any add addi addiu addu and andi clz clo ext ins neg negu nor or ori rotr
any rotrv ror rorv seb seh sll sllv sra srav srl srlv sub subu wsbh xor
any xori

category Move cycles=1 power_mw=95
any li lui mfhi mflo move movn movz mthi mtlo

category Compare cycles=1 power_mw=100
any slt slti sltiu sltu

category MulDiv cycles=4 power_mw=150
any div divu madd maddu msub msubu mul mult multu

category CondBranch cycles=2 power_mw=113
any bc1f bc1fl bc1t bc1tl beq beql beqz bgez bgezal bgeuc bgtz blez bltuc
any bltz bltzal bne bnel bnez

category Branch cycles=2 power_mw=105
any b bal j jal jalr jr

category FPArith cycles=4 power_mw=170
any abs.d abs.s add.d add.s c.* madd.d madd.s msub.d msub.s mul.d mul.s
any neg.d neg.s nmadd.d nmsub.d sub.d sub.s

category FPDivSqrt cycles=20 power_mw=175
any div.d div.s sqrt.d sqrt.s

category FPLoadStore cycles=2 power_mw=145
any ldc1 lwc1 sdc1 swc1

category FPMove cycles=2 power_mw=120
any cfc1 ctc1 cvt.* floor.* mfc1 mfhc1 mov.d mov.s movf* movn.* movt*
any movz.* mtc1 mthc1 round.* trunc.*

category System cycles=1 power_mw=90
any break cache ehb nop pref rdhwr ssnop sync syscall teq tge tlt tne
