// Seeing a graph: MLX's print_graph (a text listing) and export_to_dot
// (Graphviz), with MLX's signatures. Both walk from the outputs to the
// arrays with no recipe (constants, evaluated and detached arrays), which
// they list as the graph's inputs, and name each array the namer's way (A,
// B, ..., Z, AA, ... unless set_name says otherwise).
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

// The names arrays go by in a listing, by array id; the first array asked
// about without a name set gets "A", the next "B", and so on.
struct NodeNamer {
  std::unordered_map<std::uintptr_t, std::string> names;

  const std::string& get_name(const array& x);
  void set_name(const array& x, std::string n);
};

// Writes the graph of `outputs` as text: its inputs and outputs with shape
// and dtype, then one line per primitive in evaluation order,
// "Name inputs -> outputs".
void print_graph(std::ostream& os, NodeNamer namer, const std::vector<array>& outputs);

// Writes the graph of `outputs` as a Graphviz digraph: a box per array
// (name, shape, dtype), an ellipse per primitive, edges along the data.
void export_to_dot(std::ostream& os, NodeNamer namer, const std::vector<array>& outputs);

inline void print_graph(std::ostream& os, const std::vector<array>& outputs) {
  print_graph(os, NodeNamer{}, outputs);
}
inline void export_to_dot(std::ostream& os, const std::vector<array>& outputs) {
  export_to_dot(os, NodeNamer{}, outputs);
}

template <typename... Arrays>
requires(std::is_convertible_v<Arrays, array>&&...) void print_graph(std::ostream& os,
                                                                     Arrays&&... outputs) {
  print_graph(os, NodeNamer{}, std::vector<array>{std::forward<Arrays>(outputs)...});
}
template <typename... Arrays>
requires(std::is_convertible_v<Arrays, array>&&...) void print_graph(std::ostream& os,
                                                                     NodeNamer namer,
                                                                     Arrays&&... outputs) {
  print_graph(os, std::move(namer), std::vector<array>{std::forward<Arrays>(outputs)...});
}
template <typename... Arrays>
requires(std::is_convertible_v<Arrays, array>&&...) void export_to_dot(std::ostream& os,
                                                                       Arrays&&... outputs) {
  export_to_dot(os, NodeNamer{}, std::vector<array>{std::forward<Arrays>(outputs)...});
}
template <typename... Arrays>
requires(std::is_convertible_v<Arrays, array>&&...) void export_to_dot(std::ostream& os,
                                                                       NodeNamer namer,
                                                                       Arrays&&... outputs) {
  export_to_dot(os, std::move(namer), std::vector<array>{std::forward<Arrays>(outputs)...});
}

}  // namespace mlx_lite
