#include "mlx_lite/graph_utils.h"

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <ostream>
#include <sstream>

#include "mlx_lite/primitives.h"
#include "mlx_lite/transforms/eval.h"

namespace mlx_lite {

namespace {

// A, B, ..., Z, AA, AB, ...: the n-th name (from 0) in bijective base 26.
std::string letters(size_t n) {
  std::string name;
  for (++n; n > 0; n = (n - 1) / 26) name.insert(name.begin(), char('A' + (n - 1) % 26));
  return name;
}

// The graph as the listings need it: the primitives in evaluation order,
// each with the outputs still alive, and the arrays with no recipe left
// (the graph's inputs) in the order the walk meets them.
struct Graph {
  std::vector<std::vector<array>> nodes;  // each node's outputs; [0] holds the primitive
  std::vector<array> inputs;
};

Graph graph_of(const std::vector<array>& outputs) {
  Graph g;
  absl::flat_hash_set<std::uintptr_t> seen;
  auto add_input = [&](const array& a) {
    if (seen.insert(a.id()).second) g.inputs.push_back(a);
  };
  for (auto& node : detail::topological_order(outputs)) {
    for (const auto& in : node.inputs()) {
      if (in.is_available()) add_input(in);
    }
    std::vector<array> outs{node};
    for (auto& s : node.siblings()) outs.push_back(std::move(s));
    g.nodes.push_back(std::move(outs));
  }
  for (const auto& out : outputs) {
    if (out.is_available()) add_input(out);
  }
  return g;
}

std::string primitive_text(const array& node) {
  std::ostringstream os;
  node.primitive().print(os);
  return os.str();
}

std::string names(NodeNamer& namer, const std::vector<array>& arrays) {
  std::string text;
  for (const auto& a : arrays) text += (text.empty() ? "" : " ") + namer.get_name(a);
  return text;
}

void print_arrays(std::ostream& os, NodeNamer& namer, const std::vector<array>& arrays) {
  for (const auto& a : arrays) {
    os << "  " << namer.get_name(a) << " " << a.shape() << " " << a.dtype() << "\n";
  }
}

// Graphviz quotes: the label's own quotes and backslashes escaped.
std::string quoted(const std::string& text) {
  std::string q = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

}  // namespace

const std::string& NodeNamer::get_name(const array& x) {
  auto [it, added] = names.try_emplace(x.id());
  if (added) it->second = letters(names.size() - 1);
  return it->second;
}

void NodeNamer::set_name(const array& x, std::string n) {
  names[x.id()] = std::move(n);
}

void print_graph(std::ostream& os, NodeNamer namer, const std::vector<array>& outputs) {
  const Graph g = graph_of(outputs);
  os << "Inputs:\n";
  print_arrays(os, namer, g.inputs);
  os << "Outputs:\n";
  print_arrays(os, namer, outputs);
  os << "Primitives:\n";
  for (const auto& outs : g.nodes) {
    os << "  " << primitive_text(outs[0]) << " " << names(namer, outs[0].inputs()) << " -> "
       << names(namer, outs) << "\n";
  }
}

void export_to_dot(std::ostream& os, NodeNamer namer, const std::vector<array>& outputs) {
  const Graph g = graph_of(outputs);
  absl::flat_hash_set<std::uintptr_t> requested;
  for (const auto& out : outputs) requested.insert(out.id());
  // Inputs filled grey, the requested outputs with a double border.
  auto array_node = [&](const array& a, bool input) {
    std::ostringstream label;
    label << namer.get_name(a) << "\n" << a.shape() << " " << a.dtype();
    os << "  " << quoted(namer.get_name(a)) << " [shape=box, label=" << quoted(label.str())
       << (input ? ", style=filled, fillcolor=lightgray" : "")
       << (requested.contains(a.id()) ? ", peripheries=2" : "") << "];\n";
  };
  os << "digraph {\n  rankdir=LR;\n";
  for (const auto& in : g.inputs) array_node(in, true);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& outs = g.nodes[i];
    const std::string id = fmt::format("P{}", i);
    os << "  " << id << " [shape=ellipse, label=" << quoted(primitive_text(outs[0])) << "];\n";
    for (const auto& in : outs[0].inputs())
      os << "  " << quoted(namer.get_name(in)) << " -> " << id << ";\n";
    for (const auto& out : outs) {
      array_node(out, false);
      os << "  " << id << " -> " << quoted(namer.get_name(out)) << ";\n";
    }
  }
  os << "}\n";
}

}  // namespace mlx_lite
