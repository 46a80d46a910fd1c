# Reads far past the context: rejected at pc 0 (ctx_bad_access).
ldxdw %r0, [%r1+4000]
exit
