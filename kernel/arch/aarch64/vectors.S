/*
 * The exception vector table (VBAR_EL1): 16 entries of 0x80 bytes, four
 * groups of four (Arm ARM DDI 0487 D1.10.2, Table D1-7): taken from the
 * current EL on SP_EL0, from the current EL on SP_ELx, from a lower EL in
 * AArch64, from a lower EL in AArch32; in each, synchronous, IRQ, FIQ,
 * SError. The kernel runs on SP_EL0 (boot.S), so its exceptions arrive in
 * the first group and run on SP_EL1.
 *
 * Every entry saves x0-x30, ELR_EL1, SPSR_EL1, ESR_EL1 and FAR_EL1 into an
 * ExceptionFrame (exception.h) and calls keel_arch_exception(frame, kind)
 * with kind = the entry's index 0-15 (traps.cc); if it returns (an
 * interrupt), the registers are restored and `eret` resumes the code.
 */
#define FRAME_SIZE (36 * 8)

	.text
	.balign 0x800			/* VBAR_EL1 bits 10:0 are RES0 */
	.global keel_exception_vectors
keel_exception_vectors:
	.set kind, 0
	.rept 16
	.balign 0x80
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #0]
	mov	x1, #kind
	b	exception_common
	.set kind, kind + 1
	.endr

exception_common:
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	mrs	x2, elr_el1
	stp	x30, x2, [sp, #240]
	mrs	x2, spsr_el1
	mrs	x3, esr_el1
	stp	x2, x3, [sp, #256]
	mrs	x2, far_el1
	str	x2, [sp, #272]
	mov	x0, sp
	bl	keel_arch_exception
	/* An interrupt was handled: resume where it struck. */
	ldp	x30, x2, [sp, #240]
	msr	elr_el1, x2
	ldr	x2, [sp, #256]
	msr	spsr_el1, x2
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x19, [sp, #144]
	ldp	x20, x21, [sp, #160]
	ldp	x22, x23, [sp, #176]
	ldp	x24, x25, [sp, #192]
	ldp	x26, x27, [sp, #208]
	ldp	x28, x29, [sp, #224]
	ldp	x0, x1, [sp, #0]
	add	sp, sp, #FRAME_SIZE
	eret

	.section .note.GNU-stack, "", @progbits
