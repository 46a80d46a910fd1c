// The one shape of every fallible step of keel: an error enum whose zero
// value is `ok`, and what the step reports alongside it (where it failed,
// what it produced), whose fields the result carries as its own. Marked
// [[nodiscard]] so that no caller drops an error without saying so.
#pragma once

namespace keel {

template <typename Error, typename Detail>
struct [[nodiscard]] Result : Detail {
  Error error = Error::ok;

  constexpr Result() = default;
  // `return {Error::bad_thing, {where...}};`
  constexpr Result(Error failure, const Detail& detail = {}) : Detail(detail), error(failure) {}

  constexpr bool ok() const { return error == Error::ok; }
};

}  // namespace keel
