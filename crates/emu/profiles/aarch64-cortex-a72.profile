# AArch64 (A64) on a Cortex-A72 class out-of-order core: the second
# organization for the same ISA (as the seed compares Cortex-A8 and A9).
# Same categories and mnemonics as aarch64-cortex-a53; the cycles are
# average issue costs of a 3-wide core (below 1 where instructions pair),
# the powers those of a larger core at a higher clock. Illustrative figures
# for estimation, to be calibrated for a real part.
profile aarch64-cortex-a72
isa aarch64
organization Cortex-A72
freq_ghz 1.8
default Undefined cycles=1 power_mw=450

category Load cycles=1 power_mw=600
any ld*

category Store cycles=0.8 power_mw=560
any st*

category ALU cycles=0.4 power_mw=420
any adc* add* and* asr* bfi* bfm* bfxil* bic* cinc* cinv* cls* clz* cneg*
any csel* cset* csinc* csinv* csneg* eon* eor* extr* lsl* lsr* neg* ngc*
any orn* orr* rbit* rev* ror* sbc* sbfiz* sbfm* sbfx* sub* sxt* ubfiz*
any ubfm* ubfx* uxt*

category Move cycles=0.35 power_mw=380
any adr adrp mov movk movn movz mvn

category Compare cycles=0.4 power_mw=420
any ccmn ccmp cmn cmp tst

category MulDiv cycles=1.5 power_mw=640
any madd mneg msub mul sdiv smaddl smsubl smulh smull udiv umaddl umsubl
any umulh umull

category CondBranch cycles=0.8 power_mw=470
any b.* cbnz cbz tbnz tbz

category Branch cycles=0.8 power_mw=440
any b bl blr br ret

category FPArith cycles=1.5 power_mw=700
any addp* bif* bit* bsl* cm* dup* ext* fabs* fadd* fcmp* fcmpe* fcsel* fmadd*
any fmax* fmin* fmla* fmls* fmsub* fmul* fneg* fnmadd* fnmsub* fnmul* fsub*
any ins* movi* mvni* shrn* smax* smin* uaddl* umax* umin* umov* xtn*

category FPDivSqrt cycles=7 power_mw=720
any fdiv* fsqrt*

category FPMove cycles=1 power_mw=520
any fcvt* fmov* scvtf* ucvtf*

category System cycles=1 power_mw=380
any clrex dmb dsb hint isb mrs msr nop svc yield
