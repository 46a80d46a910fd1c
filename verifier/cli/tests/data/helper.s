# uBPF's gather_bytes helper (conformance helper 0).
mov %r1, 1
mov %r2, 2
mov %r3, 3
mov %r4, 4
mov %r5, 5
call 0
exit
