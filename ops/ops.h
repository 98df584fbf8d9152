// Every graph-building op.
#pragma once

#include "ops/binary.h"
#include "ops/creation.h"
#include "ops/indexing.h"
#include "ops/linalg.h"
#include "ops/random.h"
#include "ops/reduction.h"
#include "ops/shape.h"
#include "ops/ternary.h"
#include "ops/unary.h"
