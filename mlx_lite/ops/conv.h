/// \file
/// Convolutions: conv1d, conv2d, conv3d, conv_general and the transposed
/// convolutions, with MLX's signatures and channels-last layouts.
///
/// Layouts (as MLX): the input is (N, spatial..., C_in), the weight
/// (C_out, kernel spatial..., C_in / groups), the result
/// (N, out spatial..., C_out). The input must be floating (float32, float16,
/// bfloat16); the weight is promoted with it and the result has the promoted
/// dtype. Every op is differentiable in both arguments (vjp, jvp, grad).
///
/// Bad arguments throw std::invalid_argument with a message starting
/// `[conv]`; a computed size past INT32_MAX throws std::overflow_error.
#pragma once

#include <tuple>
#include <utility>
#include <vector>

#include "mlx_lite/array.h"
#include "mlx_lite/device.h"

namespace mlx_lite {

/// The general convolution every other conv op calls, as MLX's
/// conv_general. Per spatial axis: the input is dilated by input_dilation
/// (input_dilation - 1 zeros between neighbours), padded by padding_lo zeros
/// before and padding_hi after (a negative padding crops the dilated input),
/// then correlated with the weight dilated by kernel_dilation and read with
/// `stride`; with `flip` the kernel is reversed along its spatial axes (a
/// true convolution). Output size per axis:
/// floor((dilated + lo + hi - (kernel_dilation * (K - 1) + 1)) / stride) + 1,
/// where dilated = input_dilation * (S - 1) + 1. Each parameter vector holds
/// one value per spatial axis, or one value for all of them, or nothing for
/// the default (stride, dilations 1, padding 0). `groups` splits the input
/// and output channels into that many independent convolutions. Throws
/// std::invalid_argument for 0 or more than 3 spatial axes, ranks that
/// differ, channels that do not match or divide by groups, non-positive
/// groups, strides or dilations, an empty kernel, parameter vectors of
/// another length, an integer input, or an output size below 1.
array conv_general(array input, array weight, std::vector<int> stride = {},
                   std::vector<int> padding_lo = {}, std::vector<int> padding_hi = {},
                   std::vector<int> kernel_dilation = {}, std::vector<int> input_dilation = {},
                   int groups = 1, bool flip = false, StreamOrDevice s = {});

/// conv_general with the same padding before and after each axis.
inline array conv_general(const array& input, const array& weight, std::vector<int> stride = {},
                          std::vector<int> padding = {}, std::vector<int> kernel_dilation = {},
                          std::vector<int> input_dilation = {}, int groups = 1, bool flip = false,
                          StreamOrDevice s = {}) {
  return conv_general(input, weight, std::move(stride), padding, padding,
                      std::move(kernel_dilation), std::move(input_dilation), groups, flip, s);
}

/// 1-D convolution (cross-correlation, as MLX and PyTorch) of an (N, L, C_in)
/// input with a (C_out, K, C_in / groups) weight; `padding` zeros on both
/// sides.
array conv1d(const array& input, const array& weight, int stride = 1, int padding = 0,
             int dilation = 1, int groups = 1, StreamOrDevice s = {});

/// 2-D convolution of an (N, H, W, C_in) input with a
/// (C_out, KH, KW, C_in / groups) weight; (height, width) pairs.
array conv2d(const array& input, const array& weight, const std::pair<int, int>& stride = {1, 1},
             const std::pair<int, int>& padding = {0, 0},
             const std::pair<int, int>& dilation = {1, 1}, int groups = 1, StreamOrDevice s = {});

/// 3-D convolution of an (N, D, H, W, C_in) input with a
/// (C_out, KD, KH, KW, C_in / groups) weight; (depth, height, width) triples.
array conv3d(const array& input, const array& weight,
             const std::tuple<int, int, int>& stride = {1, 1, 1},
             const std::tuple<int, int, int>& padding = {0, 0, 0},
             const std::tuple<int, int, int>& dilation = {1, 1, 1}, int groups = 1,
             StreamOrDevice s = {});

/// 1-D transposed convolution (the gradient of conv1d with respect to its
/// input), as MLX: the weight is (C_out, K, C_in / groups) and the output
/// length is (L - 1) * stride - 2 * padding + dilation * (K - 1) + 1 +
/// output_padding. Computed as conv_general with input_dilation = stride,
/// the kernel flipped, padding_lo = dilation * (K - 1) - padding and
/// padding_hi = padding_lo + output_padding.
array conv_transpose1d(const array& input, const array& weight, int stride = 1, int padding = 0,
                       int dilation = 1, int output_padding = 0, int groups = 1,
                       StreamOrDevice s = {});

/// 2-D transposed convolution; see conv_transpose1d.
array conv_transpose2d(const array& input, const array& weight,
                       const std::pair<int, int>& stride = {1, 1},
                       const std::pair<int, int>& padding = {0, 0},
                       const std::pair<int, int>& dilation = {1, 1},
                       const std::pair<int, int>& output_padding = {0, 0}, int groups = 1,
                       StreamOrDevice s = {});

/// 3-D transposed convolution; see conv_transpose1d.
array conv_transpose3d(const array& input, const array& weight,
                       const std::tuple<int, int, int>& stride = {1, 1, 1},
                       const std::tuple<int, int, int>& padding = {0, 0, 0},
                       const std::tuple<int, int, int>& dilation = {1, 1, 1},
                       const std::tuple<int, int, int>& output_padding = {0, 0, 0}, int groups = 1,
                       StreamOrDevice s = {});

}  // namespace mlx_lite
