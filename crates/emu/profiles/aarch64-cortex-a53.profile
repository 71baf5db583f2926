# Default categorization for AArch64 (A64) on a Cortex-A53 class in-order
# core. Cycle and power figures are illustrative averages for estimation,
# to be calibrated for a real part.
profile aarch64-cortex-a53
isa aarch64
organization Cortex-A53
freq_ghz 1.2
default Undefined cycles=1 power_mw=120

category Load cycles=2 power_mw=160
any ld*

category Store cycles=1 power_mw=150
any st*

category ALU cycles=1 power_mw=110
any adc* add* and* asr* bfi* bfm* bfxil* bic* cinc* cinv* cls* clz* cneg*
any csel* cset* csinc* csinv* csneg* eon* eor* extr* lsl* lsr* neg* ngc*
any orn* orr* rbit* rev* ror* sbc* sbfiz* sbfm* sbfx* sub* sxt* ubfiz*
any ubfm* ubfx* uxt*

category Move cycles=1 power_mw=100
any adr adrp mov movk movn movz mvn

category Compare cycles=1 power_mw=110
any ccmn ccmp cmn cmp tst

category MulDiv cycles=3 power_mw=170
any madd mneg msub mul sdiv smaddl smsubl smulh smull udiv umaddl umsubl
any umulh umull

category CondBranch cycles=2 power_mw=125
any b.* cbnz cbz tbnz tbz

category Branch cycles=2 power_mw=115
any b bl blr br ret

category FPArith cycles=4 power_mw=190
any addp* bif* bit* bsl* cm* dup* ext* fabs* fadd* fcmp* fcmpe* fcsel* fmadd*
any fmax* fmin* fmla* fmls* fmsub* fmul* fneg* fnmadd* fnmsub* fnmul* fsub*
any ins* movi* mvni* shrn* smax* smin* uaddl* umax* umin* umov* xtn*

category FPDivSqrt cycles=18 power_mw=195
any fdiv* fsqrt*

category FPMove cycles=2 power_mw=140
any fcvt* fmov* scvtf* ucvtf*

category System cycles=1 power_mw=100
any clrex dmb dsb hint isb mrs msr nop svc yield
