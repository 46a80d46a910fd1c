# Never ends: only the instruction budget stops it.
mov %r0, 0
add %r0, 1
ja -2
exit
