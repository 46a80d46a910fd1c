// keel::Result (keel/result.h) and KEEL_TRY, the early return of the core's
// passes: `KEEL_TRY(parse_btf(...));` returns the result when it is not ok.
#pragma once

#include "keel/result.h"

#define KEEL_TRY(expression)                       \
  do {                                             \
    auto keel_try_result_ = (expression);          \
    if (!keel_try_result_.ok()) return keel_try_result_; \
  } while (false)
