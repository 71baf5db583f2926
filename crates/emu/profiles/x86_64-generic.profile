# Default categorization for x86_64 (AT&T mnemonics as disassembled by
# QEMU, size suffixes included) for a generic out-of-order core. Loads and
# stores hidden in memory operands of other instructions are not separated:
# the categorization is by mnemonic. Cycle and power figures are
# illustrative averages for estimation, to be calibrated for a real part.
profile x86_64-generic
isa x86_64
organization Generic out-of-order x86-64
freq_ghz 3
default Undefined cycles=1 power_mw=900

category Load cycles=1 power_mw=1200
any lods* pop*

category Store cycles=1 power_mw=1150
any cmpxchg* push* stos* xadd* xchg*

category ALU cycles=0.3 power_mw=900
any adc* add* and* andn* bextr* blsi* blsmsk* blsr* bsf* bsr* bswap* bt*
any cbtw cltd cltq cqto cwtl dec* inc* lea* lzcnt* neg* not* or* popcnt*
any rcl* rcr* rol* ror* sar* sbb* set* shl* shld* shr* shrd* sub* tzcnt*
any xor*

category Move cycles=0.3 power_mw=850
any cmov* mov* movs*

category Compare cycles=0.3 power_mw=900
any cmp* test*

category MulDiv cycles=3 power_mw=1300
any div* idiv* imul* mul*

category CondBranch cycles=1 power_mw=950
any j*

category Branch cycles=1 power_mw=950
any call* jmp* ret*

category FPArith cycles=4 power_mw=1500
any addpd addps addsd addss andnpd andnps andpd andps comisd comiss f*
any maxpd maxps maxsd maxss minpd minps minsd minss mulpd mulps mulsd
any mulss orpd orps p* subpd subps subsd subss ucomisd ucomiss unpck* v*
any xorpd xorps

category FPDivSqrt cycles=15 power_mw=1550
any divpd divps divsd divss sqrtpd sqrtps sqrtsd sqrtss vdiv* vsqrt*

category FPMove cycles=1 power_mw=1100
any cvt* movapd movaps movd movdqa movdqu movhpd movhps movlpd movlps
any movsd movss movupd movups vmov*

category System cycles=1 power_mw=800
any cpuid endbr64 fnstcw hlt lfence mfence nop* pause rdtsc sfence syscall
any ud2 xgetbv
