#include "front/ast.h"
