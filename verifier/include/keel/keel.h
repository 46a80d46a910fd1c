// The public API of libkeel: decode, run, assemble and disassemble eBPF
// programs (RFC 9669). Each stage has its own short header; this one just
// gathers them for users who want everything.
#pragma once

#include "keel/arena.h"
#include "keel/decode.h"
#include "keel/interp.h"
#include "keel/isa.h"
#include "keel/text.h"
