# Looks up key 0 in map 0 and reads 8 bytes of the value: accepted with an
# 8-byte value (--map counters:array:4:8:1), rejected with a 4-byte one.
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
lddw %r1, map_fd 0
call 1
jeq %r0, 0, +1
ldxdw %r0, [%r0]
mov %r0, 0
exit
