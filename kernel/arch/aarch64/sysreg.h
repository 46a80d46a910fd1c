/* AArch64 system-register values shared by the boot stub (boot.S) and C++.
 * Plain #defines: included from .S files. Field positions from the Arm
 * Architecture Reference Manual for A-profile (DDI 0487), section D19
 * ("AArch64 System Register Descriptions"). */
#pragma once

/* HCR_EL2.RW (bit 31): EL1 runs AArch64. Nothing else set: no stage-2
 * translation (VM=0), no traps, physical IRQs go to EL1 (IMO=0), and
 * E2H=0, so CNTHCTL_EL2 has its non-VHE layout. */
#define HCR_EL2_RW 0x80000000
/* CNTHCTL_EL2 (E2H=0): EL1PCTEN bit 0, EL1PCEN bit 1: EL1 may read the
 * physical counter and use the physical timer (CNTP_*) untrapped. */
#define CNTHCTL_EL2_EL1PCTEN_EL1PCEN 0x3
/* CPTR_EL2 (E2H=0): RES1 bits 13:12, 9:0; TFP (bit 10) clear: FP/SIMD
 * not trapped to EL2. */
#define CPTR_EL2_NO_TRAPS 0x33FF
/* CPACR_EL1.FPEN (bits 21:20) = 0b11: FP/SIMD not trapped at EL1/EL0. */
#define CPACR_EL1_FPEN (3 << 20)
/* SCTLR_EL1 RES1 bits (11, 20, 22, 23, 28, 29) with the MMU and caches off
 * and little-endian data (EE=0): a known value before entering EL1. */
#define SCTLR_EL1_RES1 0x30D00800
#define SCTLR_EL1_M (1 << 0)   /* stage-1 translation */
#define SCTLR_EL1_C (1 << 2)   /* data cacheable */
#define SCTLR_EL1_SA (1 << 3)  /* SP alignment check at EL1 */
#define SCTLR_EL1_I (1 << 12)  /* instructions cacheable */
/* SPSR_EL2 for the eret to EL1: M[3:0] = 0b0101 (EL1h), D, A, I, F masked. */
#define SPSR_EL1H_MASKED 0x3C5
/* MPIDR_EL1 affinity fields Aff2:Aff0 (bits 23:0): zero on the boot CPU of
 * QEMU virt and of the BCM2712. */
#define MPIDR_AFFINITY_MASK 0xFFFFFF
