/*
 * One entry stub per interrupt vector, all funnelled into keel_arch_trap
 * (traps.cc) with a TrapFrame (cpu.h) on the stack.
 *
 * In 64-bit mode the CPU aligns RSP to 16 bytes and pushes SS, RSP, RFLAGS,
 * CS, RIP and, for some exceptions, an error code (SDM Vol. 3A §6.14.2,
 * §6.13). The stubs push a zero where the CPU pushes no error code, then
 * the vector, so every frame has one layout: 7 + 15 saved registers = 176
 * bytes, keeping RSP 16-byte aligned at the call as the SysV ABI requires.
 */
	.text
	.code64

	.altmacro
	.macro trap_stub vector
	.balign 16
trap_stub_\vector:
	/* Vectors with an error code: #DF 8, #TS 10, #NP 11, #SS 12, #GP 13,
	 * #PF 14, #AC 17, #CP 21, #VC 29, #SX 30 (SDM Vol. 3A Table 6-1). */
	.if (\vector == 8) || ((\vector >= 10) && (\vector <= 14)) || (\vector == 17) || (\vector == 21) || (\vector == 29) || (\vector == 30)
	.else
	pushq $0
	.endif
	pushq $\vector
	jmp trap_common
	.endm

	.macro trap_table_entry vector
	.quad trap_stub_\vector
	.endm

	.set vector, 0
	.rept 256
	trap_stub %vector
	.set vector, vector + 1
	.endr

trap_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, %rdi
	cld
	call keel_arch_trap
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp		/* vector and error code */
	iretq

	/* keel_trap_stubs[v]: the entry address for vector v (cpu.cc builds the
	 * IDT from it). */
	.section .rodata
	.balign 8
	.global keel_trap_stubs
keel_trap_stubs:
	.set vector, 0
	.rept 256
	trap_table_entry %vector
	.set vector, vector + 1
	.endr

	.section .note.GNU-stack, "", @progbits
