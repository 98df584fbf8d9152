// Precompiled into every test program (tests/CMakeLists.txt): GoogleTest and
// the standard headers most tests use, which are most of a test's parse
// time. Nothing of mlx_lite's, so each test still includes what it uses.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>
