/// \file
/// Seeing a graph: MLX's print_graph (a text listing) and export_to_dot
/// (Graphviz), with MLX's signatures. Both walk from the outputs to the
/// arrays with no recipe (constants, evaluated and detached arrays), which
/// they list as the graph's inputs, and name each array the namer's way (A,
/// B, ..., Z, AA, ... unless set_name says otherwise).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mlx_lite/array.h"

namespace mlx_lite {

/// The names arrays go by in a listing, by array id. An array asked about
/// without a name set gets the next of "A", "B", ..., "Z", "AA", ... (the
/// one at the count of names held so far).
struct NodeNamer {
  /// The names given so far, by array::id().
  std::unordered_map<std::uintptr_t, std::string> names;

  /// The name of `x`, giving it the next letter name when it has none.
  const std::string& get_name(const array& x);
  /// Names `x` `n` (replacing any name it had).
  void set_name(const array& x, std::string n);
};

/// Writes the graph of `outputs` as text: its inputs and outputs with shape
/// and dtype, then one line per primitive in evaluation order,
/// "Name inputs -> outputs".
void print_graph(std::ostream& os, NodeNamer namer, const std::vector<array>& outputs);

/// Writes the graph of `outputs` as a Graphviz digraph: a box per array
/// (name, shape, dtype), an ellipse per primitive, edges along the data.
void export_to_dot(std::ostream& os, NodeNamer namer, const std::vector<array>& outputs);

/// print_graph() with a fresh NodeNamer.
inline void print_graph(std::ostream& os, const std::vector<array>& outputs) {
  print_graph(os, NodeNamer{}, outputs);
}
/// export_to_dot() with a fresh NodeNamer.
inline void export_to_dot(std::ostream& os, const std::vector<array>& outputs) {
  export_to_dot(os, NodeNamer{}, outputs);
}

/// print_graph() of the arrays given one by one, with a fresh NodeNamer.
template <typename... Arrays>
requires(std::is_convertible_v<Arrays, array>&&...) void print_graph(std::ostream& os,
                                                                     Arrays&&... outputs) {
  print_graph(os, NodeNamer{}, std::vector<array>{std::forward<Arrays>(outputs)...});
}
/// print_graph() of the arrays given one by one.
template <typename... Arrays>
requires(std::is_convertible_v<Arrays, array>&&...) void print_graph(std::ostream& os,
                                                                     NodeNamer namer,
                                                                     Arrays&&... outputs) {
  print_graph(os, std::move(namer), std::vector<array>{std::forward<Arrays>(outputs)...});
}
/// export_to_dot() of the arrays given one by one, with a fresh NodeNamer.
template <typename... Arrays>
requires(std::is_convertible_v<Arrays, array>&&...) void export_to_dot(std::ostream& os,
                                                                       Arrays&&... outputs) {
  export_to_dot(os, NodeNamer{}, std::vector<array>{std::forward<Arrays>(outputs)...});
}
/// export_to_dot() of the arrays given one by one.
template <typename... Arrays>
requires(std::is_convertible_v<Arrays, array>&&...) void export_to_dot(std::ostream& os,
                                                                       NodeNamer namer,
                                                                       Arrays&&... outputs) {
  export_to_dot(os, std::move(namer), std::vector<array>{std::forward<Arrays>(outputs)...});
}

}  // namespace mlx_lite
