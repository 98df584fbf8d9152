// What softmax.comp and softmax_split.comp share: a line's statistics, its
// max m and the sum s of exp(x - m), gathered in one read of the elements
// ("online": a larger max rescales the sum so far). Include after the
// bindings and params; the workgroup is at most kSoftmaxMaxThreads threads.
//
// Special values follow the CPU's two-pass formulas (max, then the sum of
// exp(x - max)), which a line's statistics must reproduce however its
// elements were split: NaN anywhere makes m and s NaN; an element of +inf
// makes m +inf and s NaN (exp(inf - inf)); -inf elements add 0 to a sum
// whose max is finite, and a part whose max is -inf holds s = 0 (whatever
// it is combined with, the line's result is then decided by the max: a line
// of -inf has softmax NaN and logsumexp -inf).

struct Stats {
  float m;  // the max, NaN winning as in the CPU's maxCoeff<PropagateNaN>
  float s;  // sum of exp(x - m)
};

float minus_inf() { return uintBitsToFloat(0xff800000u); }

float max_nan(float a, float b) { return (a > b || isnan(a)) ? a : b; }

Stats no_stats() { return Stats(minus_inf(), 0.0); }

// a's sum seen from the max m (at least a.m); 0 for a part of -inf only.
float rescaled(Stats a, float m) { return a.m == minus_inf() ? 0.0 : a.s * exp(a.m - m); }

Stats combine(Stats a, Stats b) {
  const float m = max_nan(a.m, b.m);
  return Stats(m, rescaled(a, m) + rescaled(b, m));
}

Stats add_element(Stats a, float x) { return combine(a, Stats(x, x == minus_inf() ? 0.0 : 1.0)); }

shared float shared_m[kSoftmaxMaxThreads];
shared float shared_s[kSoftmaxMaxThreads];

// The combination of v over each segment of `segment` consecutive threads
// (a power of two dividing the workgroup), returned to the segment's
// threads. Every thread of the workgroup must call it (it holds barriers).
// Variants compiled with SUBGROUP_SHUFFLE (for devices with subgroup
// shuffles) combine a segment that fits a subgroup by shuffles.
Stats segment_stats(Stats v, uint segment) {
#if defined(SUBGROUP_SHUFFLE) && SUBGROUP_SHUFFLE
  // A segment within one subgroup (local invocation t is lane t % size of
  // subgroup t / size, as every driver lays out a one-dimensional
  // workgroup): a butterfly of shuffles, no shared memory and no barriers.
  // Every lane ends with the same combination (combine is commutative).
  if (segment <= gl_SubgroupSize) {
    for (uint half_ = segment / 2u; half_ > 0u; half_ >>= 1u) {
      v = combine(v, Stats(subgroupShuffleXor(v.m, half_), subgroupShuffleXor(v.s, half_)));
    }
    return v;
  }
#endif
  const uint t = gl_LocalInvocationID.x;
  const uint lane = t % segment;
  shared_m[t] = v.m;
  shared_s[t] = v.s;
  barrier();
  for (uint half_ = segment / 2u; half_ > 0u; half_ >>= 1u) {
    if (lane < half_) {
      const Stats r = combine(Stats(shared_m[t], shared_s[t]),
                              Stats(shared_m[t + half_], shared_s[t + half_]));
      shared_m[t] = r.m;
      shared_s[t] = r.s;
    }
    barrier();
  }
  const Stats r = Stats(shared_m[t - lane], shared_s[t - lane]);
  barrier();  // the arrays are reused by the next call
  return r;
}

Stats workgroup_stats(Stats v) { return segment_stats(v, gl_WorkGroupSize.x); }

// The max (NaN winning) or the sum of v over each segment, as segment_stats
// combines: for a line held in registers, whose max is known before its
// exps (one exp an element, no rescaling in the combine).
float reduce_pair(float a, float b, bool is_max) { return is_max ? max_nan(a, b) : a + b; }

float segment_reduce(float v, uint segment, bool is_max) {
#if defined(SUBGROUP_SHUFFLE) && SUBGROUP_SHUFFLE
  if (segment <= gl_SubgroupSize) {
    // Every lane ends with the same bits: each step adds (or takes the max
    // of) the same two values on both lanes of a pair.
    for (uint half_ = segment / 2u; half_ > 0u; half_ >>= 1u) {
      v = reduce_pair(v, subgroupShuffleXor(v, half_), is_max);
    }
    return v;
  }
#endif
  const uint t = gl_LocalInvocationID.x;
  const uint lane = t % segment;
  shared_m[t] = v;
  barrier();
  for (uint half_ = segment / 2u; half_ > 0u; half_ >>= 1u) {
    if (lane < half_) shared_m[t] = reduce_pair(shared_m[t], shared_m[t + half_], is_max);
    barrier();
  }
  const float r = shared_m[t - lane];
  barrier();  // the array is reused by the next call
  return r;
}

// Softmax of x in a line of statistics a (the CPU multiplies by the
// reciprocal of the sum), and a line's logsumexp (an infinite max is the
// answer: shifting by it would give NaN).
float softmax_of(float x, Stats a, float inv_s) { return exp(x - a.m) * inv_s; }
float logsumexp_of(Stats a) { return isinf(a.m) ? a.m : a.m + log(a.s); }
