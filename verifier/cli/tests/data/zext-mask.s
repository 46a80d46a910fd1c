# keel accepts, Linux 6.18 rejects ("R0 max value is outside of the allowed
# memory range"): w3 = w6 is a zero-extended copy of r6's low half; the
# branch on w6 bounds r3 too in keel (a zext32 link), while Linux links
# 32-bit moves only of values that fit in 32 bits, and r6 may not.
call 5
mov %r6, %r0
lddw %r7, 0x10000ffff
and %r6, %r7
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
lddw %r1, map_fd 0
call 1
jeq %r0, 0, +5
mov32 %r3, %r6
jgt32 %r6, 7, +3
add %r0, %r3
ldxb %r0, [%r0]
ja +1
mov %r0, 0
mov %r0, 0
exit
