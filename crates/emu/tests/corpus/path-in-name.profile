profile ../escape
isa a
freq_ghz 1
default U cycles=1 power_mw=1
