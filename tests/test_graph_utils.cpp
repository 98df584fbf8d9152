// print_graph and export_to_dot (mlx_lite/graph_utils.h) against listings
// written out by hand for small graphs, and the namer's names.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "mlx_lite/mlx_lite.h"

using namespace mlx_lite;

namespace {

// d = exp(a + b) over two constants.
struct SmallGraph {
  array a = array({1.0f, 2.0f});
  array b = array({3.0f, 4.0f});
  array c = a + b;
  array d = exp(c);
};

template <typename... Args>
std::string printed(Args&&... args) {
  std::ostringstream os;
  print_graph(os, std::forward<Args>(args)...);
  return os.str();
}

template <typename... Args>
std::string dot(Args&&... args) {
  std::ostringstream os;
  export_to_dot(os, std::forward<Args>(args)...);
  return os.str();
}

TEST(GraphUtils, PrintGraphListsInputsOutputsAndPrimitivesInOrder) {
  SmallGraph g;
  EXPECT_EQ(printed(g.d),
            "Inputs:\n"
            "  A (2,) float32\n"
            "  B (2,) float32\n"
            "Outputs:\n"
            "  C (2,) float32\n"
            "Primitives:\n"
            "  Add A B -> D\n"
            "  Exp D -> C\n");
}

TEST(GraphUtils, ExportToDotDrawsArraysAndPrimitives) {
  SmallGraph g;
  EXPECT_EQ(dot(std::vector<array>{g.d}),
            "digraph {\n"
            "  rankdir=LR;\n"
            "  \"A\" [shape=box, label=\"A\n(2,) float32\", style=filled, fillcolor=lightgray];\n"
            "  \"B\" [shape=box, label=\"B\n(2,) float32\", style=filled, fillcolor=lightgray];\n"
            "  P0 [shape=ellipse, label=\"Add\"];\n"
            "  \"A\" -> P0;\n"
            "  \"B\" -> P0;\n"
            "  \"C\" [shape=box, label=\"C\n(2,) float32\"];\n"
            "  P0 -> \"C\";\n"
            "  P1 [shape=ellipse, label=\"Exp\"];\n"
            "  \"C\" -> P1;\n"
            "  \"D\" [shape=box, label=\"D\n(2,) float32\", peripheries=2];\n"
            "  P1 -> \"D\";\n"
            "}\n");
}

TEST(GraphUtils, ANodeUsedTwiceIsListedOnce) {
  SmallGraph g;
  array e = g.c * g.c + g.c;
  EXPECT_EQ(printed(e),
            "Inputs:\n"
            "  A (2,) float32\n"
            "  B (2,) float32\n"
            "Outputs:\n"
            "  C (2,) float32\n"
            "Primitives:\n"
            "  Add A B -> D\n"
            "  Multiply D D -> E\n"
            "  Add E D -> C\n");
}

TEST(GraphUtils, SeveralOutputsAndNamesSetByTheCaller) {
  SmallGraph g;
  NodeNamer namer;  // letters count the names set too, as MLX's do
  namer.set_name(g.a, "x");
  namer.set_name(g.d, "y");
  EXPECT_EQ(printed(namer, g.d, g.c),
            "Inputs:\n"
            "  x (2,) float32\n"
            "  C (2,) float32\n"
            "Outputs:\n"
            "  y (2,) float32\n"
            "  D (2,) float32\n"
            "Primitives:\n"
            "  Add x C -> D\n"
            "  Exp D -> y\n");
}

TEST(GraphUtils, EvaluatedArraysAreInputs) {
  SmallGraph g;
  eval(g.d);
  EXPECT_EQ(printed(g.d), "Inputs:\n  A (2,) float32\nOutputs:\n  A (2,) float32\nPrimitives:\n");
}

TEST(GraphUtils, NamesGoPastZ) {
  NodeNamer namer;
  std::vector<array> arrays;
  for (int i = 0; i < 28; ++i) arrays.push_back(array(float(i)));
  std::string names;
  for (const auto& a : arrays) names += namer.get_name(a) + " ";
  EXPECT_EQ(names, "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z AA AB ");
  EXPECT_EQ(namer.get_name(arrays[0]), "A");  // a name, once given, stays
}

// The walk is iterative: a chain far deeper than any call stack is listed.
TEST(GraphUtils, LongChainsDoNotRecurse) {
  array x = array(0.0f);
  for (int i = 0; i < 100000; ++i) x = x + 1.0f;
  const std::string text = printed(x);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3 + 100001 + 1 + 100000);
}

}  // namespace
