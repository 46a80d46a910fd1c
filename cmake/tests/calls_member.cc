// Calls copy_bytes, defined by another member of the same archive
// (memcpy_only.cc): a symbol the archive defines itself must not count.
extern "C" void copy_bytes(void* destination, const void* source, decltype(sizeof 0) size);

extern "C" void copy_word(void* destination, const void* source) {
  copy_bytes(destination, source, 8);
}
