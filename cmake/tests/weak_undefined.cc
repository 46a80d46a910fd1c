// A weak reference to an undefined function links silently (to address 0)
// in a kernel image: the check must treat it like any undefined symbol.
extern "C" void weak_hook() __attribute__((weak));

extern "C" void maybe_call_hook() {
  if (weak_hook) weak_hook();
}
