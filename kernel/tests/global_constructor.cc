// Must NOT link with kernel.ld: a global that needs a constructor puts an
// entry in .init_array, which the kernel never runs (nothing calls it
// before kernel_main). kernel.ld turns that into a link error; the test
// <arch>.link-rejects-global-constructors (kernel/arch/*/image.cmake)
// checks that it does, on every arch.
int runtime_value();
int needs_a_constructor = runtime_value();

int runtime_value() { return 42; }

extern "C" void _start() {}
