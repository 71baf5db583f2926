profile p
isa a
freq_ghz 1
default Undefined cycles=1 power_mw=1
category A cycles=1 power_mw=1
any add
category B cycles=1 power_mw=1
any add
