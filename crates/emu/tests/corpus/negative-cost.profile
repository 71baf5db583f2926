profile p
isa a
freq_ghz 1
default Undefined cycles=-1 power_mw=1
