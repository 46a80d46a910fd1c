/*
 * uint64_t keel_semihosting_call(uint64_t operation, uint64_t parameter):
 * the Arm semihosting trap for A64, `hlt #0xf000` with the operation in
 * w0 and the parameter in x1, result in x0 (Arm "Semihosting for AArch32
 * and AArch64" v2.0, §2.2). Without a semihosting host the instruction is
 * UNDEFINED; traps.cc recognises that exception by its address
 * (keel_semihosting_trap) and returns ~0 from here instead of faulting.
 */
	.text
	.balign 4
	.global keel_semihosting_call
	.global keel_semihosting_trap
keel_semihosting_call:
keel_semihosting_trap:
	hlt	#0xf000
	ret

	.section .note.GNU-stack, "", @progbits
