#include "analysis/stats.h"
#include "front/ast.h"
#include "coll.h"
