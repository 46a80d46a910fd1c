# Reads 8 bytes past the end of the memory: guarded mode must trap at pc 0.
ldxdw %r0, [%r1+8]
exit
