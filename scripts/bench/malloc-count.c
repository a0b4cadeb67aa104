/* LD_PRELOAD library that counts heap allocations (malloc, calloc, realloc, the aligned ones)
 * and prints "heap allocations: N" to stderr at exit. Used by scripts/check-allocations.sh,
 * where valgrind cannot run the agent's binary. Forwards to glibc's own allocator.
 *
 * With MALLOC_COUNT_FROM_OPEN=PATH set, counting starts when the process opens PATH with
 * fopen (libpcap's pcap_open_offline does), so the count covers the analysis of that capture
 * and not the start-up before it. Start-up is not deterministic: libdispatch and the Swift
 * concurrency runtime start their worker threads in an order that races (each thread's TLS,
 * dlerror buffer and dispatch continuation are allocations), and about one run in fifteen
 * counted one or two more. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ulong allocations;
static atomic_bool counting = true;

__attribute__((constructor)) static void start(void) {
  if (getenv("MALLOC_COUNT_FROM_OPEN")) atomic_store(&counting, false);
}

static void count(void) {
  if (atomic_load_explicit(&counting, memory_order_relaxed))
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t number, size_t size) { count(); return __libc_calloc(number, size); }
void *realloc(void *pointer, size_t size) { count(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
  void *pointer = memalign(alignment, size);
  if (!pointer) return 12; /* ENOMEM */
  *result = pointer;
  return 0;
}

typedef FILE *(*fopen_function)(const char *, const char *);

static FILE *open_and_maybe_start(const char *symbol, const char *path, const char *mode) {
  fopen_function next = (fopen_function)dlsym(RTLD_NEXT, symbol);
  if (!next) return NULL;
  const char *from = getenv("MALLOC_COUNT_FROM_OPEN");
  if (from && path && strcmp(path, from) == 0) atomic_store(&counting, true);
  return next(path, mode);
}

/* glibc exports both names; a library built with _FILE_OFFSET_BITS=64 calls fopen64. */
FILE *fopen(const char *path, const char *mode) { return open_and_maybe_start("fopen", path, mode); }
FILE *fopen64(const char *path, const char *mode) { return open_and_maybe_start("fopen64", path, mode); }

__attribute__((destructor)) static void report(void) {
  char line[96];
  int length = atomic_load(&counting)
    ? snprintf(line, sizeof line, "heap allocations: %lu\n", atomic_load(&allocations))
    : snprintf(line, sizeof line, "heap allocations: not counted (MALLOC_COUNT_FROM_OPEN never opened)\n");
  if (length > 0) (void)!write(2, line, (size_t)length);
}
