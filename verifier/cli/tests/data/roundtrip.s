# A mix of instruction shapes for the asm -> disasm -> asm round trip.
mov %r0, 0
mov32 %r1, -1
add %r0, %r1
sub32 %r2, 7
mul %r3, 0x10
div32 %r4, %r5
sdiv %r4, 3
mod %r6, %r7
smod32 %r6, -5
or %r0, 0x7fffffff
and32 %r0, %r9
lsh %r1, 63
rsh32 %r1, %r2
arsh %r1, 1
xor %r8, %r8
neg %r3
neg32 %r3
movsx864 %r0, %r1
movsx1632 %r4, %r3
movsx3264 %r0, %r9
le16 %r1
be32 %r2
be64 %r3
bswap64 %r4
lddw %r0, 0x1122334455667788
lddw %r9, -1
ldxb %r0, [%r1+0]
ldxh %r0, [%r1+2]
ldxw %r0, [%r10-4]
ldxdw %r0, [%r10-8]
ldxsb %r0, [%r10-1]
ldxsw %r0, [%r10-4]
stb [%r10-1], 0x7f
sth [%r10-2], -1
stw [%r10-4], 1
stdw [%r10-8], 2
stxb [%r10-1], %r1
stxdw [%r10-16], %r2
lock add [%r10-8], %r1
lock fetch or32 [%r10-4], %r3
lock xchg [%r10-8], %r1
lock cmpxchg32 [%r10-8], %r1
jeq %r1, 0, +2
jne32 %r1, %r2, -3
jsgt %r3, -1, +0
jset32 %r4, 0x80, +1
ja +1
ja32 -2
call 1
call %r2
exit
