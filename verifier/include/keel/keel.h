// The public API of libkeel: load eBPF object files, decode, verify, run,
// assemble and disassemble eBPF programs (RFC 9669). Each stage has its own
// short header; this one gathers every one of them (a test checks that
// none is left out) for users who want everything. The C API is apart:
// keel/keel_c.h, in the keel_c library.
#pragma once

#include "keel/arena.h"
#include "keel/btf_program.h"
#include "keel/decode.h"
#include "keel/elf.h"
#include "keel/interp.h"
#include "keel/isa.h"
#include "keel/platform.h"
#include "keel/platform_linux.h"
#include "keel/result.h"
#include "keel/spec_guard.h"
#include "keel/text.h"
#include "keel/verify.h"
