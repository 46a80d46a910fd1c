// Calls a function nothing in the archive defines: the check must fail
// and name `bar`.
extern "C" void bar();

extern "C" void call_bar() { bar(); }
