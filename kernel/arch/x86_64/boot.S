/*
 * The multiboot1 entry: QEMU's -kernel loads only 32-bit images (docs/platform.md,
 * docs/adr/0007), so the image starts in 32-bit protected mode, paging off,
 * and this stub takes it to 64-bit long mode:
 *
 *   zero .bss -> identity page tables for 0..4 GiB -> CR4.PAE -> EFER.LME ->
 *   CR0.PG -> load a GDT with a 64-bit code segment -> far jump -> 64-bit
 *   stack -> keel_arch_entry(magic, info).
 *
 * Citations: Multiboot Specification 0.6.96 §3.1 (header), §3.2 (machine
 * state at entry); Intel SDM Vol. 3A §10.8.5 (initializing IA-32e mode),
 * §4.5 (4-level paging), Table 4-15/4-17/4-19 (PDPTE/PDE/PTE formats).
 */
#include "boot_layout.h"

	.section .multiboot, "a"
	.balign 4
	/* §3.1.1: magic, flags, checksum (the three sum to 0 mod 2^32). No flag
	 * bits: page-aligned modules and the memory map are not needed, and
	 * without bit 16 the loader takes the load addresses from the ELF headers. */
	.long MULTIBOOT_MAGIC
	.long 0
	.long -MULTIBOOT_MAGIC

	.section .boot.text, "ax"
	.code32
	.global _start
_start:
	cli
	cld
	/* §3.2: EAX holds the magic 0x2BADB002 and EBX the physical address of
	 * the multiboot information. ESI and EBX survive everything below. */
	movl %eax, %esi

	/* .bss (page tables, stacks included) is not guaranteed zero. */
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb

	/* The BIOS data area's EBDA segment (ACPI §5.2.5.1), read while page 0
	 * is still reachable: the page tables below leave it out. */
	movzwl 0x40E, %eax
	movl %eax, keel_bios_ebda_segment

	/* PML4[0] -> the PDPT; PDPT[0..3] -> four page directories: 4 GiB. */
	movl $keel_pdpt, %eax
	orl $(PAGE_PRESENT | PAGE_WRITE), %eax
	movl %eax, keel_pml4
	movl $keel_page_directories, %eax
	orl $(PAGE_PRESENT | PAGE_WRITE), %eax
	xorl %ecx, %ecx
1:	movl %eax, keel_pdpt(,%ecx,8)
	addl $PAGE_SIZE, %eax
	incl %ecx
	cmpl $4, %ecx
	jne 1b

	/* 2048 directory entries of 2 MiB pages (PS). From 3 GiB up lie the
	 * chipset and device windows (HPET at 0xFED00000, local APIC at
	 * 0xFEE00000): mapped uncached (PCD|PWT, SDM Vol. 3A §12.12.3 with the
	 * reset PAT), since a cached MMIO read could return a stale counter. */
	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $21, %eax
	orl $(PAGE_PRESENT | PAGE_WRITE | PAGE_LARGE), %eax
	cmpl $1536, %ecx
	jb 3f
	orl $(PAGE_WRITE_THROUGH | PAGE_CACHE_DISABLE), %eax
3:	movl %eax, keel_page_directories(,%ecx,8)
	incl %ecx
	cmpl $2048, %ecx
	jne 2b

	/* The first 2 MiB (the kernel image lives at 1 MiB) in 4 KiB pages, so
	 * that two pages can stay unmapped (docs/adr/0009): page 0, so that a
	 * null pointer faults, and the page below the boot stack, so that a
	 * stack overflow does. */
	movl $keel_low_page_table, %eax
	orl $(PAGE_PRESENT | PAGE_WRITE), %eax
	movl %eax, keel_page_directories
	xorl %ecx, %ecx
4:	movl %ecx, %eax
	shll $12, %eax
	jz 5f				/* page 0 */
	cmpl $__stack_guard, %eax
	je 5f
	orl $(PAGE_PRESENT | PAGE_WRITE), %eax
	movl %eax, keel_low_page_table(,%ecx,8)
5:	incl %ecx
	cmpl $512, %ecx
	jne 4b

	/* §10.8.5: PAE on, CR3 = PML4, EFER.LME (MSR 0xC0000080 bit 8), then
	 * CR0.PG activates long mode (compatibility mode until CS is 64-bit). */
	movl $keel_pml4, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_PE), %eax
	movl %eax, %cr0

	lgdt keel_gdt_pointer
	ljmp $GDT_CODE64, $long_mode

	.code64
long_mode:
	movw $GDT_DATA, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movq $__stack_top, %rsp
	xorl %ebp, %ebp
	/* SysV: keel_arch_entry(uint32_t magic, uint32_t info). 32-bit moves
	 * zero the upper halves. */
	movl %esi, %edi
	movl %ebx, %esi
	call keel_arch_entry
6:	cli
	hlt
	jmp 6b

	/* GDT (SDM Vol. 3A §3.4.5, §5.2.1): null, 64-bit code (L=1, D=0), data,
	 * and a 16-byte TSS descriptor that cpu.cc fills in before `ltr`. */
	.section .data
	.balign 16
	.global keel_gdt
keel_gdt:
	.quad 0
	.quad 0x00AF9A000000FFFF	/* GDT_CODE64: present, ring 0, execute/read, L */
	.quad 0x00CF92000000FFFF	/* GDT_DATA: present, ring 0, read/write */
	.quad 0, 0			/* GDT_TSS: written by cpu.cc */
keel_gdt_end:
	.balign 8
	.global keel_gdt_pointer
keel_gdt_pointer:
	.word keel_gdt_end - keel_gdt - 1
	.quad keel_gdt

	.global keel_bios_ebda_segment
	.balign 4
keel_bios_ebda_segment:
	.long 0

	/* Paging structures: page aligned, zeroed with the rest of .bss. */
	.section .bss.page_tables, "aw", @nobits
	.balign PAGE_SIZE
keel_pml4:
	.skip PAGE_SIZE
keel_pdpt:
	.skip PAGE_SIZE
keel_page_directories:
	.skip 4 * PAGE_SIZE
keel_low_page_table:
	.skip PAGE_SIZE

	.section .note.GNU-stack, "", @progbits
