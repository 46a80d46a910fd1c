/* keel's C API: load an eBPF object file (`clang -target bpf -c` output)
 * from memory and verify its programs as Linux 6.1 would check them, from
 * C hosts. Handles are opaque; every function accepts NULL and out-of-range
 * arguments and answers them with an error, never a crash. Memory comes
 * from malloc (this library is for hosted programs; a freestanding host
 * uses the C++ core, keel/keel.h, with its own arena). */
#ifndef KEEL_KEEL_C_H
#define KEEL_KEEL_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct keel_object keel_object;
typedef struct keel_result keel_result;

typedef enum keel_verdict {
  KEEL_ACCEPT = 0, /* the program is safe to run */
  KEEL_REJECT = 1, /* the program may do something unsafe: see the reason and message */
  KEEL_ERROR = 2   /* the program could not be checked (bad object, bad argument, no memory) */
} keel_verdict;

/* Loads the object in `bytes` (copied: the caller may free them after the
 * call). Returns NULL only when memory runs out; a malformed object gives a
 * handle whose keel_object_error() is the reason and whose programs all
 * verify as KEEL_ERROR. Free with keel_object_free(). */
keel_object* keel_object_load(const void* bytes, size_t size);

/* NULL when the object loaded; otherwise one line saying what is wrong
 * ("bad_header: ..."). Valid until keel_object_free(). */
const char* keel_object_error(const keel_object* object);

/* Programs in the object: 0 for NULL or an object that did not load. */
size_t keel_program_count(const keel_object* object);

/* Program `index`'s function name and ELF section ("xdp"), or NULL when
 * out of range. Valid until keel_object_free(). */
const char* keel_program_name(const keel_object* object, size_t index);
const char* keel_program_section(const keel_object* object, size_t index);

/* Verifies program `index` (or the program whose function is `name`) as its
 * section's Linux program type, with the object's maps, privileged, with
 * Linux 6.1's rules. Returns NULL only when memory runs out; free the
 * result with keel_result_free(). */
keel_result* keel_verify_program(const keel_object* object, size_t index);
keel_result* keel_verify_program_named(const keel_object* object, const char* name);

/* The verdict; KEEL_ERROR for NULL. */
keel_verdict keel_result_verdict(const keel_result* result);

/* A stable snake_case name: "ok", a rejection ("null_dereference"), a
 * decode rejection ("decode:unknown_helper") or an error ("bad_header",
 * "bad_argument", "unknown_program_type", "out_of_memory"). Never NULL. */
const char* keel_result_reason(const keel_result* result);

/* One line for people ("pc 12: r0 may be NULL ..."); for an accepted
 * program "accepted". Never NULL. */
const char* keel_result_message(const keel_result* result);

/* Accepted programs: a sound upper bound on the instructions one run
 * executes; 0 otherwise. */
uint64_t keel_result_max_insns(const keel_result* result);

void keel_result_free(keel_result* result);
void keel_object_free(keel_object* object);

#ifdef __cplusplus
}
#endif

#endif /* KEEL_KEEL_C_H */
