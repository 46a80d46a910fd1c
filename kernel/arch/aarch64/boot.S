/*
 * The AArch64 entry. The image is a Linux arm64 "Image" (header below), so
 * a loader that speaks that boot protocol (QEMU's -kernel, the Raspberry Pi
 * firmware) loads it at a 2 MiB boundary + text_offset and enters at its
 * first byte with the MMU off and x0 = the device tree's physical address
 * (docs/adr/0020):
 *
 *   park all but the boot CPU -> at EL2: set up EL2 for an EL1 kernel and
 *   eret to EL1 -> FP/SIMD on -> zero .bss -> exception stack (SP_EL1) and
 *   kernel stack (SP_EL0) -> vectors -> keel_arch_entry(dtb, entry_el).
 *
 * Citations: Linux Documentation/arch/arm64/booting.rst (the header and
 * the register state at entry); Arm ARM DDI 0487 D1.3 (exception levels),
 * D19 (the system registers in sysreg.h).
 */
#include "sysreg.h"

	.section .head.text, "ax"
	.global _start
_start:
	/* booting.rst: code0/code1, text_offset, image_size, flags, 3 reserved
	 * words, magic "ARM\x64", reserved. flags = 0b0010: little-endian
	 * (bit 0 = 0), 4 KiB pages (bits 2:1 = 01), and bit 3 = 0: the 2 MiB
	 * base as close as possible to the start of RAM. The kernel is linked
	 * at one address and does not relocate itself, so it must run at RAM
	 * start + text_offset (QEMU virt 0x40080000, Pi 5 0x80000), which is
	 * what bit 3 = 0 asks of a loader (docs/adr/0034). */
	b	primary_entry
	.long	0
	.quad	__image_text_offset
	.quad	__image_size
	.quad	0x2
	.quad	0, 0, 0
	.ascii	"ARM\x64"
	.long	0

	.section .boot.text, "ax"
primary_entry:
	mov	x19, x0			/* the device tree (0 if none) */
	mrs	x1, mpidr_el1
	and	x1, x1, #MPIDR_AFFINITY_MASK
	cbz	x1, 1f
0:	wfe				/* a secondary CPU: parked for good */
	b	0b

1:	mrs	x20, CurrentEL
	lsr	x20, x20, #2		/* CurrentEL.EL, bits 3:2 */
	cmp	x20, #2
	b.ne	in_el1
	/* At EL2 (Pi 5 firmware; QEMU -M virt,virtualization=on): the kernel
	 * runs at EL1, so EL2 is set up to stay out of its way. HCR_EL2 goes
	 * first: with E2H = 1 (a firmware may leave it set on a VHE CPU such
	 * as the Cortex-A76) CNTHCTL_EL2 and CPTR_EL2 have other layouts
	 * (Arm ARM, their register descriptions): E2H must be 0 by then. */
	mov	x1, #HCR_EL2_RW
	msr	hcr_el2, x1
	isb
	mov	x1, #CNTHCTL_EL2_EL1PCTEN_EL1PCEN
	msr	cnthctl_el2, x1
	msr	cntvoff_el2, xzr	/* virtual counter = physical counter */
	mov	x1, #CPTR_EL2_NO_TRAPS
	msr	cptr_el2, x1
	msr	hstr_el2, xzr
	/* EL1 reads MPIDR_EL1/MIDR_EL1 from these (reset value UNKNOWN). */
	mrs	x1, mpidr_el1
	msr	vmpidr_el2, x1
	mrs	x1, midr_el1
	msr	vpidr_el2, x1
	ldr	x1, =SCTLR_EL1_RES1
	msr	sctlr_el1, x1
	mov	x1, #SPSR_EL1H_MASKED
	msr	spsr_el2, x1
	adr	x1, in_el1
	msr	elr_el2, x1
	eret

in_el1:
	msr	daifset, #0xF
	ldr	x1, =SCTLR_EL1_RES1	/* MMU and caches off until mmu.cc */
	msr	sctlr_el1, x1
	mov	x1, #CPACR_EL1_FPEN
	msr	cpacr_el1, x1
	isb

	/* .bss (page tables and stacks included) is not guaranteed zero. Both
	 * ends are 16-byte aligned (kernel.ld). It is written here with the
	 * MMU off, so uncached; booting.rst promises clean caches only for
	 * the loaded file, and the firmware may have left lines of this range
	 * in the data cache, which a later eviction (dirty) or cached read
	 * (stale) would let win over the zeros once the caches are on. So the
	 * range is invalidated to the PoC before and after (docs/adr/0035). */
	ldr	x0, =__bss_start
	ldr	x1, =__bss_end
	bl	keel_dcache_invalidate
	ldr	x1, =__bss_start
	ldr	x2, =__bss_end
2:	cmp	x1, x2
	b.hs	3f
	stp	xzr, xzr, [x1], #16
	b	2b
3:	ldr	x0, =__bss_start
	ldr	x1, =__bss_end
	bl	keel_dcache_invalidate

	/* Exceptions run on SP_EL1, a stack of their own; the kernel runs on
	 * SP_EL0 (SPSel = 0, "EL1t"), above the guard page, so that a kernel
	 * stack overflow is reported from a stack that still works
	 * (docs/adr/0022). */
	ldr	x1, =__exception_stack_top
	mov	sp, x1
	msr	spsel, #0
	ldr	x1, =__stack_top
	mov	sp, x1
	ldr	x1, =keel_exception_vectors
	msr	vbar_el1, x1
	isb
	mov	x29, xzr
	mov	x30, xzr
	mov	x0, x19
	mov	x1, x20
	bl	keel_arch_entry
4:	wfi
	b	4b

	/* keel_dcache_invalidate(x0 = start, x1 = end): DC IVAC, invalidate
	 * by address to the point of coherency, over every data cache line
	 * that [start, end) touches, then DSB SY. The line size is the
	 * smallest the CPU has: CTR_EL0.DminLine, log2 of words (Arm ARM
	 * D19.2). No stack; clobbers x0, x2, x3. */
	.global keel_dcache_invalidate
keel_dcache_invalidate:
	mrs	x2, ctr_el0
	ubfx	x2, x2, #16, #4
	mov	x3, #4
	lsl	x2, x3, x2		/* bytes per line */
	sub	x3, x2, #1
	bic	x0, x0, x3
5:	cmp	x0, x1
	b.hs	6f
	dc	ivac, x0
	add	x0, x0, x2
	b	5b
6:	dsb	sy
	ret

	.section .note.GNU-stack, "", @progbits
