#include "coll.h"
