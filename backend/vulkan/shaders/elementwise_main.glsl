// main() of the elementwise shaders (copy, unary, binary, select): calls
// element(i), which the including shader defines, for every i < n.
//
// constant_id 3  ELEMENTS_PER_THREAD: on the dense path (CONTIGUOUS, n < 2^32)
//                each thread takes this many elements, one sweep apart (i,
//                i + sweep, ...), so every load and store of a subgroup stays
//                consecutive while per-thread index work and the workgroup
//                count shrink. The host sets it (elementwise_threads in
//                backend/vulkan/elementwise.cpp) for large arrays only: the
//                elements of one thread are processed in sequence, and an
//                output written in place over its input forbids overlapping
//                their loads, which costs latency on small dependent ops.
layout(constant_id = 3) const uint ELEMENTS_PER_THREAD = 1;

void main() {
  if (CONTIGUOUS && ELEMENTS_PER_THREAD > 1u && meta[0] <= int64_t(0xffffffffu)) {
    const uint n = uint(meta[0]);
    const uint sweep = (n + ELEMENTS_PER_THREAD - 1u) / ELEMENTS_PER_THREAD;
    uint i = uint(thread_index());
    if (i >= sweep) return;
    for (uint k = 0u; k < ELEMENTS_PER_THREAD && i < n; ++k, i += sweep) element(int64_t(i));
    return;
  }
  const int64_t i = thread_index();
  if (i >= meta[0]) return;
  element(i);
}
