/* headers.c - the public headers compile alone, as C99 with -pedantic
 * (tests/abi/CMakeLists.txt): coll.h is self-contained and portable,
 * coll_cpu.h needs nothing but coll.h. Built, never run. */
#include <coll_cpu.h>
#include <coll.h>

int abi_headers_c(void);
int abi_headers_c(void) { return COLL_COLLECTIVE_COUNT + COLL_CPU_MAX_RANKS; }
