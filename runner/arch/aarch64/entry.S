// The runner's entry (the ELF entry point, -e keel_runner_entry): install
// the exception vectors first, so that a fault anywhere, even in
// picolibc's start-up code before main(), ends the run with a report and
// a failing exit status instead of hanging QEMU. Then picolibc's _start.
//
// VBAR_EL1 takes a 2 KiB-aligned table of 16 entries of 128 bytes
// (Arm ARM D1.10.2, "Exception vectors"); every entry goes to the same
// handler, which runs on its own stack: the faulting code's may be the
// cause.
    .section .text.init.keel_runner, "ax"
    .global keel_runner_entry
keel_runner_entry:
    adr     x0, keel_runner_vectors
    msr     vbar_el1, x0
    isb
    b       _start

    .section .text.keel_runner_vectors, "ax"
    .balign 2048
keel_runner_vectors:
    .rept 16
    .balign 128
    b       keel_runner_exception
    .endr

keel_runner_exception:
    adrp    x0, keel_runner_fault_stack_top
    add     x0, x0, :lo12:keel_runner_fault_stack_top
    mov     sp, x0
    mrs     x0, esr_el1
    mrs     x1, elr_el1
    mrs     x2, far_el1
    b       keel_runner_fault

    .bss
    .balign 16
    .space  4096
keel_runner_fault_stack_top:
