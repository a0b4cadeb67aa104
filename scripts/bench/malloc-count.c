/* LD_PRELOAD library that counts heap allocations (malloc, calloc, realloc, the aligned ones)
 * and prints "heap allocations: N" to stderr at exit. Used by scripts/check-allocations.sh,
 * where valgrind cannot run the agent's binary. Forwards to glibc's own allocator. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ulong allocations;

void *malloc(size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
  void *pointer = memalign(alignment, size);
  if (!pointer) return 12; /* ENOMEM */
  *result = pointer;
  return 0;
}

__attribute__((destructor)) static void report(void) {
  char line[64];
  int length = snprintf(line, sizeof line, "heap allocations: %lu\n", atomic_load(&allocations));
  if (length > 0) (void)!write(2, line, (size_t)length);
}
