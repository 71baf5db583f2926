# Default categorization for ARMv7-A (ARM and Thumb-2) on a Cortex-A9.
# Cycle and power figures are illustrative averages for estimation, to be
# calibrated for a real part; the clock is the AndroProf seed's Table 5.3
# setting (2 GHz). The Cortex-A9 is out of order with a pipelined VFPv3,
# so its per-category cycles are lower and its power higher than the A8's.
profile armv7-cortex-a9
isa armv7
organization Cortex-A9
freq_ghz 2
default Undefined cycles=1 power_mw=140

category Load cycles=1.5 power_mw=190
any ldm* ldr* pop*

category Store cycles=1 power_mw=185
any push* stm* str*

category ALU cycles=0.6 power_mw=140
any adc* add* and* asr* bfc* bfi* bic* clz* eor* lsl* lsr* orn* orr* pkh*
any qadd* qsub* rbit* rev* ror* rrx* rsb* rsc* sadd* sbc* sbfx* sel* ssub*
any sub* sxt* uadd* ubfx* uqadd* uqsub* usad* usub* uxt*

category Move cycles=0.6 power_mw=130
any adr* mov* mvn*

category Compare cycles=0.6 power_mw=140
any cmn* cmp* teq* tst*

category MulDiv cycles=2 power_mw=200
any mla* mls* mul* sdiv* smla* smul* smull* umaal* udiv* umlal* umull*

category CondBranch cycles=1.5 power_mw=155
any bcc bcs beq bge bgt bhi bhs ble blo bls blt bmi bne bpl bvc bvs
any bxeq bxne
thumb cbnz cbz

category Branch cycles=1 power_mw=145
any b bl bl* blx bx bx*
thumb tbb tbh

category FPArith cycles=2 power_mw=230
any v* vabs* vadd* vcmp* vfma* vfms* vmax* vmin* vmla* vmls* vmul* vneg*
any vnmla* vnmls* vnmul* vsub*

category FPDivSqrt cycles=15 power_mw=235
any vdiv* vsqrt*

category FPLoadStore cycles=1 power_mw=195
any vld* vpop* vpush* vst*

category FPMove cycles=1 power_mw=165
any vcvt* vdup* vmov* vmrs* vmsr*

category System cycles=1 power_mw=120
any clrex* cps* dmb* dsb* isb* mcr* mrc* mrs* msr* nop* pld* pli* sev* svc*
any udf* wfe* wfi* yield*
thumb it*
