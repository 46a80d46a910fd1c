#include <cstdio>

int main() {
  std::fputs("keel: not yet\n", stderr);
  return 2;
}
