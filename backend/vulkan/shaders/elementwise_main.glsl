// main() of the elementwise shaders (copy, unary, binary, select): calls
// element(i), which the including shader defines, for every i < n. On the
// dense path (CONTIGUOUS, n < 2^32) each thread takes kElementsPerThread
// elements one sweep apart, i, i + sweep, ..., so every load and store of a
// subgroup is still consecutive while the per-thread index work, the bounds
// check and the workgroup count shrink; the host launches
// elementwise_threads(n, dense) threads (backend/vulkan/elementwise.cpp).
const uint kElementsPerThread = 4;

void main() {
  if (CONTIGUOUS && meta[0] <= int64_t(0xffffffffu)) {
    const uint n = uint(meta[0]);
    const uint sweep = (n + kElementsPerThread - 1u) / kElementsPerThread;
    uint i = uint(thread_index());
    if (i >= sweep) return;
    for (uint k = 0u; k < kElementsPerThread && i < n; ++k, i += sweep) element(int64_t(i));
    return;
  }
  const int64_t i = thread_index();
  if (i >= meta[0]) return;
  element(i);
}
