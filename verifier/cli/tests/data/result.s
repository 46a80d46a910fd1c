# r0 = the 32-bit word at [r1+4] plus r2 (the memory's length).
ldxw %r0, [%r1+4]
add %r0, %r2
exit
