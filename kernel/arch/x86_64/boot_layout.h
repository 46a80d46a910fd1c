/* Constants shared by the boot stub, the exception stubs and C++ (the
 * selectors, the page-table bits). Plain #defines: included from .S files.
 *
 * Intel SDM section numbers in this folder follow the 2023 and later
 * editions, where Vol. 3A chapter 7 is "User Interrupts"; in older editions
 * chapters 7 and up of Vol. 3A are one lower (APIC: 10, not 11). */
#pragma once

/* Multiboot Specification 0.6.96 §3.1.1 (header) and §3.2 (EAX at entry). */
#define MULTIBOOT_MAGIC 0x1BADB002
#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002

#define PAGE_SIZE 4096
/* SDM Vol. 3A Tables 4-14..4-19: P, R/W, PWT, PCD, PS (2 MiB in a PDE). */
#define PAGE_PRESENT 0x001
#define PAGE_WRITE 0x002
#define PAGE_WRITE_THROUGH 0x008
#define PAGE_CACHE_DISABLE 0x010
#define PAGE_LARGE 0x080

#define CR0_PE 0x00000001
#define CR0_PG 0x80000000
#define CR4_PAE 0x00000020
#define MSR_EFER 0xC0000080
#define EFER_LME 0x00000100

/* Segment selectors: index * 8 in keel_gdt (boot.S). */
#define GDT_CODE64 0x08
#define GDT_DATA 0x10
#define GDT_TSS 0x18
