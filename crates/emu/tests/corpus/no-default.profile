profile p
isa a
freq_ghz 1
