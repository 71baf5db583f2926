profile p
isa a
freq_ghz zero
