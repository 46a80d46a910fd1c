/* The C API from C: accept, reject with its reason and message, a corrupt
 * object, and NULL or out-of-range arguments (errors, never crashes). The
 * objects are the project's BPF test programs (verifier/tests/bpf), built
 * into KEEL_BPF_OBJECT_DIR when clang is there; without them only the
 * checks that need no object run and the test reports itself skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel/keel_c.h"

static int failures = 0;

#define EXPECT(condition)                                                  \
  do {                                                                     \
    if (!(condition)) {                                                    \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                          \
    }                                                                      \
  } while (0)

static int contains(const char* text, const char* part) { return text != NULL && strstr(text, part) != NULL; }

/* Reads a whole file into malloc'd memory; NULL when it cannot. */
static unsigned char* read_file(const char* path, size_t* size) {
  FILE* file = fopen(path, "rb");
  unsigned char* bytes = NULL;
  long length;
  if (file == NULL) return NULL;
  if (fseek(file, 0, SEEK_END) == 0 && (length = ftell(file)) > 0 && fseek(file, 0, SEEK_SET) == 0) {
    bytes = malloc((size_t)length);
    if (bytes != NULL && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
      free(bytes);
      bytes = NULL;
    }
    *size = (size_t)length;
  }
  fclose(file);
  return bytes;
}

static void null_and_bad_arguments(void) {
  keel_result* result = keel_verify_program(NULL, 0);
  EXPECT(result != NULL);
  EXPECT(keel_result_verdict(result) == KEEL_ERROR);
  EXPECT(strcmp(keel_result_reason(result), "bad_argument") == 0);
  keel_result_free(result);

  result = keel_verify_program_named(NULL, NULL);
  EXPECT(keel_result_verdict(result) == KEEL_ERROR);
  keel_result_free(result);

  EXPECT(keel_result_verdict(NULL) == KEEL_ERROR);
  EXPECT(keel_result_reason(NULL) != NULL);
  EXPECT(keel_result_message(NULL) != NULL);
  EXPECT(keel_result_max_insns(NULL) == 0);
  EXPECT(keel_program_count(NULL) == 0);
  EXPECT(keel_program_name(NULL, 0) == NULL);
  EXPECT(keel_object_error(NULL) != NULL);
  keel_result_free(NULL);
  keel_object_free(NULL);

  keel_object* object = keel_object_load(NULL, 16);
  EXPECT(object != NULL);
  EXPECT(contains(keel_object_error(object), "bad_argument"));
  result = keel_verify_program(object, 0);
  EXPECT(keel_result_verdict(result) == KEEL_ERROR);
  EXPECT(strcmp(keel_result_reason(result), "bad_argument") == 0);
  keel_result_free(result);
  keel_object_free(object);
}

static void corrupt(const unsigned char* bytes, size_t size, const char* reason) {
  keel_object* object = keel_object_load(bytes, size);
  keel_result* result;
  EXPECT(object != NULL);
  EXPECT(contains(keel_object_error(object), reason));
  EXPECT(keel_program_count(object) == 0);
  result = keel_verify_program(object, 0);
  EXPECT(keel_result_verdict(result) == KEEL_ERROR);
  EXPECT(strcmp(keel_result_reason(result), reason) == 0);
  EXPECT(contains(keel_result_message(result), reason));
  keel_result_free(result);
  keel_object_free(object);
}

int main(void) {
  static const unsigned char text[] = "this is not an ELF object, only some text long enough for a header";
  size_t maps_size = 0, unsafe_size = 0, i;
  unsigned char *maps, *unsafe;
  keel_object* object;
  keel_result* result;
  int found_null_check = 0;

  null_and_bad_arguments();
  corrupt(text, sizeof text, "bad_header");
  corrupt(text, 0, "truncated");

  maps = read_file(KEEL_BPF_OBJECT_DIR "/maps.bpf.o", &maps_size);
  unsafe = read_file(KEEL_BPF_OBJECT_DIR "/unsafe.bpf.o", &unsafe_size);
  if (maps == NULL || unsafe == NULL) {
    free(maps);
    free(unsafe);
    if (failures != 0) return 1;
    printf("SKIP: no BPF test objects in %s (clang not found at configure time)\n", KEEL_BPF_OBJECT_DIR);
    return 77;
  }

  /* maps.bpf.o: every program is safe. */
  object = keel_object_load(maps, maps_size);
  EXPECT(keel_object_error(object) == NULL);
  EXPECT(keel_program_count(object) == 3);
  for (i = 0; i < keel_program_count(object); ++i) {
    result = keel_verify_program(object, i);
    EXPECT(keel_result_verdict(result) == KEEL_ACCEPT);
    EXPECT(strcmp(keel_result_reason(result), "ok") == 0);
    EXPECT(keel_result_max_insns(result) > 0);
    keel_result_free(result);
  }
  result = keel_verify_program_named(object, "use_maps");
  EXPECT(keel_result_verdict(result) == KEEL_ACCEPT);
  keel_result_free(result);
  EXPECT(strcmp(keel_program_section(object, 0), "xdp") == 0);
  EXPECT(keel_program_name(object, 3) == NULL);
  result = keel_verify_program(object, 3);
  EXPECT(keel_result_verdict(result) == KEEL_ERROR);
  EXPECT(strcmp(keel_result_reason(result), "bad_argument") == 0);
  EXPECT(contains(keel_result_message(result), "holds 3"));
  keel_result_free(result);
  result = keel_verify_program_named(object, "no_such_program");
  EXPECT(keel_result_verdict(result) == KEEL_ERROR);
  EXPECT(contains(keel_result_message(result), "no_such_program"));
  keel_result_free(result);
  keel_object_free(object);

  /* A truncated copy of it is an error, not a verdict. */
  corrupt(maps, 40, "truncated");
  free(maps);

  /* unsafe.bpf.o: every program is rejected, no_null_check for a NULL
   * dereference; but uninitialized_read, as `keel verify` and privileged
   * Linux do (unwritten stack reads as unknown). */
  object = keel_object_load(unsafe, unsafe_size);
  free(unsafe); /* the object holds its own copy */
  EXPECT(keel_program_count(object) == 5);
  for (i = 0; i < keel_program_count(object); ++i) {
    const int uninitialized = strcmp(keel_program_name(object, i), "uninitialized_read") == 0;
    result = keel_verify_program(object, i);
    EXPECT(keel_result_verdict(result) == (uninitialized ? KEEL_ACCEPT : KEEL_REJECT));
    EXPECT((keel_result_max_insns(result) == 0) == !uninitialized);
    if (strcmp(keel_program_name(object, i), "no_null_check") == 0) {
      found_null_check = 1;
      EXPECT(strcmp(keel_result_reason(result), "null_dereference") == 0);
      EXPECT(contains(keel_result_message(result), "pc "));
      EXPECT(contains(keel_result_message(result), "NULL"));
    }
    keel_result_free(result);
  }
  EXPECT(found_null_check);
  keel_object_free(object);

  if (failures == 0) printf("keel_c_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
