// Whether a function transform (vjp, jvp) is tracing a function. While one
// is, eval keeps evaluated nodes attached to their inputs, so a function that
// evaluates part of its own graph (item(), eval()) can still be differentiated.
#pragma once

namespace mlx_lite::detail {

bool in_tracing();

// Marks a transform's trace for its lifetime (nests).
class InTracing {
 public:
  InTracing();
  ~InTracing();
  InTracing(const InTracing&) = delete;
  InTracing& operator=(const InTracing&) = delete;
};

}  // namespace mlx_lite::detail
