#include "coll.h"
#include "cpu.h"
