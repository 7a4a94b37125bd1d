// headers.cpp - coll.h and coll_cpu.h compile as C++ too (extern "C").
// Built, never run.
#include <coll.h>
#include <coll_cpu.h>

int abi_headers_cxx();
int abi_headers_cxx() { return COLL_ALLREDUCE + COLL_COLLECTIVE_COUNT; }
