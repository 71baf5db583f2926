# Default categorization for ARMv7-A (ARM and Thumb-2) on a Cortex-A8.
# Cycle and power figures are illustrative averages for estimation, to be
# calibrated for a real part: the conditional-branch figures (3 cycles,
# 113 mW) are the AndroProf seed's; the clock is the seed's Table 5.3
# setting (1 GHz). The Cortex-A8's VFP-lite is not pipelined, hence the
# high floating-point costs.
profile armv7-cortex-a8
isa armv7
organization Cortex-A8
freq_ghz 1
default Undefined cycles=1 power_mw=100

category Load cycles=2 power_mw=140
any ldm* ldr* pop*

category Store cycles=1 power_mw=135
any push* stm* str*

category ALU cycles=1 power_mw=100
any adc* add* and* asr* bfc* bfi* bic* clz* eor* lsl* lsr* orn* orr* pkh*
any qadd* qsub* rbit* rev* ror* rrx* rsb* rsc* sadd* sbc* sbfx* sel* ssub*
any sub* sxt* uadd* ubfx* uqadd* uqsub* usad* usub* uxt*

category Move cycles=1 power_mw=95
any adr* mov* mvn*

category Compare cycles=1 power_mw=100
any cmn* cmp* teq* tst*

category MulDiv cycles=2 power_mw=150
any mla* mls* mul* sdiv* smla* smul* smull* umaal* udiv* umlal* umull*

category CondBranch cycles=3 power_mw=113
any bcc bcs beq bge bgt bhi bhs ble blo bls blt bmi bne bpl bvc bvs
any bxeq bxne
thumb cbnz cbz

category Branch cycles=2 power_mw=105
any b bl bl* blx bx bx*
thumb tbb tbh

category FPArith cycles=9 power_mw=170
any v* vabs* vadd* vcmp* vfma* vfms* vmax* vmin* vmla* vmls* vmul* vneg*
any vnmla* vnmls* vnmul* vsub*

category FPDivSqrt cycles=29 power_mw=175
any vdiv* vsqrt*

category FPLoadStore cycles=2 power_mw=145
any vld* vpop* vpush* vst*

category FPMove cycles=3 power_mw=120
any vcvt* vdup* vmov* vmrs* vmsr*

category System cycles=1 power_mw=90
any clrex* cps* dmb* dsb* isb* mcr* mrc* mrs* msr* nop* pld* pli* sev* svc*
any udf* wfe* wfi* yield*
thumb it*
